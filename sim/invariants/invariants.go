// Package invariants holds the seed's twelve assistant-durability
// invariants (assistant-durability.md §Invariants) as checker functions over
// a View of committed state plus the run's event/frame log. The simulator
// calls Check after every step; each checker returns nil or an error naming
// the invariant and the offending item.
package invariants

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// LogItem is one observed item, in observation order: a lane event or a
// frame pipeline record.
type LogItem struct {
	Event *lane.Event
	Frame *lane.FrameRecord
}

// View is what the checkers read.
type View struct {
	// Ops maps operation id → committed state (nil: deleted by a terminal TX).
	Ops map[string]*lane.OpState
	// Results maps operation id → whether pi.result is set.
	Results map[string]bool
	// Lists maps frame-list key ("op:resp") → committed elements.
	Lists map[string][]store.ListElement
	// Entries maps entry id → committed assistant message (nil for others).
	Entries map[string]*pi.AssistantMessage
	// Log is the run's events and frame records in order.
	Log []LogItem
	// Snapshot is the latest lane snapshot (may be nil).
	Snapshot *lane.Snapshot
	// Restored, when set, is the operation a fresh process restored; it
	// must equal the committed state of that op (invariant 1).
	Restored *lane.Operation
	// Structural lists (op, resp) pairs used by structural generation.
	Structural [][2]string

	// canonical, when set (views from a ViewReader), remembers the element
	// bytes invariant 3 found to be canonical frames: committed elements
	// never change, and the check depends on the bytes alone, so a run
	// checking after every commit need not re-parse every element again.
	canonical map[string]bool
	// canonicalSeqs, when set (views a ViewReader read from storage whose
	// seqs name its records), is canonical keyed by the element's seq.
	canonicalSeqs map[int64]bool
	// parseFrame, when set (with canonicalSeqs), parses an element by its
	// seq (ViewReader.Frame)
	parseFrame func(seq int64, value []byte) (*pi.Frame, error)
}

// Checker is one invariant.
type Checker struct {
	N     int
	Name  string
	Check func(v *View) error
}

// All are the twelve invariants in seed order.
var All = []Checker{
	{1, "scalar state is the sole restart authority", restartAuthority},
	{2, "one effect-pending response id constructs exactly one frame-list address", oneAddress},
	{3, "every stored element is a pi-ai AssistantMessageFrame", elementsAreFrames},
	{4, "terminal done/error events are never stored as frames", noTerminalFrames},
	{5, "frame order is a subsequence of provider event order", frameOrder},
	{6, "awaiting the latest frame write implies all accepted appends completed", drainImpliesCommitted},
	{7, "frames never establish provider completion", framesNeverComplete},
	{8, "settlement atomically deletes the exact frame list", settlementDeletes},
	{9, "a restored partial never appears in the transcript before settlement", partialNotInTranscript},
	{10, "interrupted partial tool calls never produce a tool plan", noToolPlanFromInterrupted},
	{11, "structural generation never writes a frame list", structuralNoList},
	{12, "terminal cleanup and finalization leave no operation-owned frame list", noOwnedListAfterTerminal},
}

// Check runs every invariant and returns the first violation.
func Check(v *View) error {
	for _, c := range All {
		if err := c.Check(v); err != nil {
			return fmt.Errorf("invariant %d (%s): %w", c.N, c.Name, err)
		}
	}
	return nil
}

func splitKey(k string) (op, resp string) {
	i := strings.LastIndex(k, ":")
	if i < 0 {
		return k, ""
	}
	return k[:i], k[i+1:]
}

// 1: a restored process takes its restart point from the committed scalar
// state and nothing else.
func restartAuthority(v *View) error {
	if v.Restored == nil {
		return nil
	}
	st := v.Ops[v.Restored.ID]
	if st == nil {
		return fmt.Errorf("restored operation %s has no committed state", v.Restored.ID)
	}
	if !bytes.Equal(lane.MarshalState(st), lane.MarshalState(v.Restored.State)) {
		return fmt.Errorf("restored state of %s differs from the committed state", v.Restored.ID)
	}
	return nil
}

// Invariants 2, 5, 6, 7 and 11 run LogScan's rules over the whole log, so
// that a LogScan's Check and the package's share their rules (VerifyFull
// compares what the scan carried from earlier calls with what a scan from
// the start derives); each starts from a scan holding only the state its
// rule keeps.

// 2: frame records of a response only ever target FramesAddr(op, resp), and
// one response id belongs to one list key.
func oneAddress(v *View) error {
	return (&LogScan{owner: map[string]string{}}).oneAddress(v, v.Log)
}

// 3: every element parses as a frame and re-serializes to the same bytes.
func elementsAreFrames(v *View) error {
	for k, els := range v.Lists {
		for _, e := range els {
			if v.canonicalSeqs != nil {
				if v.canonicalSeqs[e.Seq] {
					continue
				}
			} else if v.canonical[string(e.Value)] {
				continue
			}
			f, err := v.frameOf(e)
			if err != nil {
				return fmt.Errorf("list %s seq %d: %v", k, e.Seq, err)
			}
			b, _ := pi.Marshal(f)
			if !bytes.Equal(b, e.Value) {
				return fmt.Errorf("list %s seq %d is not a canonical frame", k, e.Seq)
			}
			if v.canonicalSeqs != nil {
				v.canonicalSeqs[e.Seq] = true
			} else if v.canonical != nil {
				v.canonical[string(e.Value)] = true
			}
		}
	}
	return nil
}

// frameOf parses a committed element, through parseFrame when set.
func (v *View) frameOf(e store.ListElement) (*pi.Frame, error) {
	if v.parseFrame != nil {
		return v.parseFrame(e.Seq, e.Value)
	}
	return pi.ParseFrame(string(e.Value))
}

// 4: no frame was produced for a terminal event.
func noTerminalFrames(v *View) error {
	return noTerminalFramesIn(v.Log)
}

// 5: per response, enqueued and committed frames follow provider event
// order (strictly increasing event index and seq).
func frameOrder(v *View) error {
	return (&LogScan{lastEnq: map[string]int{}, lastCom: map[string]int{}, lastSeq: map[string]int64{}}).frameOrder(v, v.Log)
}

// 6: at a live message_end, every frame enqueued for that response has
// settled (committed or declined).
func drainImpliesCommitted(v *View) error {
	return (&LogScan{pending: map[string]int{}}).drainImpliesCommitted(v.Log)
}

// 7: a synthetic (recovery or cancellation) settlement is never a success:
// committed frames never stand in for provider completion. Only Synthetic
// entries count; a recovery-tagged live replacement poll may succeed.
func framesNeverComplete(v *View) error {
	return new(LogScan).framesNeverComplete(v, v.Log)
}

// 8: once a response entry is committed, its list is gone.
func settlementDeletes(v *View) error {
	for k, els := range v.Lists {
		_, resp := splitKey(k)
		if _, settled := v.Entries[resp]; settled && len(els) > 0 {
			return fmt.Errorf("entry %s committed but list %s keeps %d frames", resp, k, len(els))
		}
	}
	return nil
}

// 9: the snapshot's partial is outside the transcript, and a durable partial
// only exists for an effect_pending response.
func partialNotInTranscript(v *View) error {
	s := v.Snapshot
	if s == nil || s.StreamingMessage == nil {
		return nil
	}
	if !s.Live && (s.State == nil || !s.State.At.IsEffectPending()) {
		return fmt.Errorf("durable streamingMessage without an effect_pending operation")
	}
	if s.State != nil && s.State.At.IsEffectPending() {
		for _, e := range s.Transcript {
			if e.ID == s.State.ResponseEntryID {
				return fmt.Errorf("pending response %s is in the transcript", e.ID)
			}
		}
	}
	return nil
}

// 10: a tools leaf never plans calls from an error/aborted response.
func noToolPlanFromInterrupted(v *View) error {
	for op, st := range v.Ops {
		if st == nil || st.At != lane.LeafTools {
			continue
		}
		m := v.Entries[st.BatchAssistantEntryID]
		if m == nil || m.StopReason == pi.StopError || m.StopReason == pi.StopAborted {
			return fmt.Errorf("operation %s plans tools from entry %s", op, st.BatchAssistantEntryID)
		}
	}
	return nil
}

// 11: no list at a structural generation's address.
func structuralNoList(v *View) error {
	return (&LogScan{framePairs: map[[2]string]bool{}}).structuralNoList(v, v.Log)
}

// 12: a list may only exist for its operation's current effect_pending
// response.
func noOwnedListAfterTerminal(v *View) error {
	for k, els := range v.Lists {
		if len(els) == 0 {
			continue
		}
		op, resp := splitKey(k)
		st := v.Ops[op]
		if st == nil || !st.At.IsEffectPending() || st.ResponseEntryID != resp {
			return fmt.Errorf("list %s has %d frames but its operation is not effect_pending on %s", k, len(els), resp)
		}
	}
	return nil
}
