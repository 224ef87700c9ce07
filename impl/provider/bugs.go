package provider

import "fmt"

// Bug names a seeded adapter defect. Each one breaks exactly one rule of the
// event contract so the contract checker can be shown to catch it.
type Bug int

// The seeded bugs.
const (
	BugNone Bug = iota
	// BugTextStartsNonEmpty delays text_start until the first delta has been
	// applied and then drops that delta event: the block starts non-empty.
	BugTextStartsNonEmpty
	// BugDropFinalDelta swallows the last text_delta of each text block.
	BugDropFinalDelta
	// BugRestartToolCall emits a second toolcall_start for the same index
	// before the first argument delta.
	BugRestartToolCall
	// BugEventAfterDone repeats the last non-terminal event after done.
	BugEventAfterDone
	// BugMisnumberedIndex shifts every delta's contentIndex by one.
	BugMisnumberedIndex
)

// Bugs lists every seeded bug (excluding BugNone).
var Bugs = []Bug{BugTextStartsNonEmpty, BugDropFinalDelta, BugRestartToolCall, BugEventAfterDone, BugMisnumberedIndex}

func (b Bug) String() string {
	switch b {
	case BugNone:
		return "none"
	case BugTextStartsNonEmpty:
		return "text-starts-non-empty"
	case BugDropFinalDelta:
		return "drop-final-delta"
	case BugRestartToolCall:
		return "restart-toolcall"
	case BugEventAfterDone:
		return "event-after-done"
	case BugMisnumberedIndex:
		return "misnumbered-index"
	}
	return fmt.Sprintf("bug(%d)", int(b))
}

// ParseBug maps a bug name back to its Bug.
func ParseBug(s string) (Bug, error) {
	for _, b := range append([]Bug{BugNone}, Bugs...) {
		if b.String() == s {
			return b, nil
		}
	}
	return BugNone, fmt.Errorf("provider: unknown bug %q", s)
}

// WithBug returns out distorted by the seeded bug (out itself for BugNone).
// The distortion wraps an adapter's output from outside: the adapters and
// their emitter carry no bug branch, so the code users run is the code the
// harness certifies; a test seeds a bug with
// Stream(wire, r, meta, opts, WithBug(bug, emit)).
func WithBug(bug Bug, out func(Event)) func(Event) {
	if bug == BugNone {
		return out
	}
	d := &distorter{bug: bug, out: out}
	return d.apply
}

// distorter holds what a seeded bug remembers between events.
type distorter struct {
	bug        Bug
	out        func(Event)
	heldStart  map[int]*Event // BugTextStartsNonEmpty: start waiting for its first delta
	heldDelta  *Event         // BugDropFinalDelta: the most recent text delta
	argStarted map[int]bool   // BugRestartToolCall: blocks that already got a delta
	last       *Event         // BugEventAfterDone: last non-terminal event
}

// apply forwards ev to the output, distorted by the seeded bug.
func (st *distorter) apply(ev Event) {
	switch st.bug {
	case BugTextStartsNonEmpty:
		if st.heldStart == nil {
			st.heldStart = map[int]*Event{}
		}
		switch ev.Type {
		case EvTextStart:
			e := ev
			st.heldStart[ev.ContentIndex] = &e
			return
		case EvTextDelta, EvTextEnd:
			if held := st.heldStart[ev.ContentIndex]; held != nil {
				delete(st.heldStart, ev.ContentIndex)
				held.Partial = ev.Partial.Clone() // the start now shows the applied delta
				st.out(*held)
				if ev.Type == EvTextDelta {
					return
				}
			}
		}
	case BugDropFinalDelta:
		if held := st.heldDelta; held != nil {
			st.heldDelta = nil
			if !(ev.Type == EvTextEnd && ev.ContentIndex == held.ContentIndex) {
				st.out(*held)
			}
		}
		if ev.Type == EvTextDelta {
			e := ev
			st.heldDelta = &e
			return
		}
	case BugRestartToolCall:
		if ev.Type == EvToolDelta {
			if st.argStarted == nil {
				st.argStarted = map[int]bool{}
			}
			if !st.argStarted[ev.ContentIndex] {
				st.argStarted[ev.ContentIndex] = true
				st.out(Event{Type: EvToolStart, ContentIndex: ev.ContentIndex, Partial: ev.Partial.Clone()})
			}
		}
	case BugEventAfterDone:
		if !ev.IsTerminal() {
			e := ev
			st.last = &e
		}
		st.out(ev)
		if ev.Type == EvDone && st.last != nil {
			st.out(*st.last)
		}
		return
	case BugMisnumberedIndex:
		if ev.Phase() == "delta" {
			ev.ContentIndex++
		}
	}
	st.out(ev)
}
