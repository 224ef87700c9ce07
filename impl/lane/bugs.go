package lane

import (
	"fmt"
	"sort"
)

// Bugs are deliberately injectable defects for the simulator's mutation
// score. The zero value is the correct lane. Each switch changes observable
// behaviour; bugs_test.go shows a check catching every one.
type Bugs struct {
	// SettleWithoutDelete omits deleteList(frames) from settlement and from
	// the terminal cleanup suffix.
	SettleWithoutDelete bool
	// FenceIgnoresResponse accepts every frame append without checking the
	// leaf or the responseEntryId.
	FenceIgnoresResponse bool
	// FenceAtEnqueue evaluates the fence when the append is enqueued instead
	// of at its turn on the line.
	FenceAtEnqueue bool
	// SkipDrain runs after_response without awaiting the latest frame write.
	SkipDrain bool
	// RecoveryRunsAfterResponse runs the after_response hook on synthetic
	// recovery/cancellation responses.
	RecoveryRunsAfterResponse bool
	// SyntheticNonZeroUsage gives synthetic responses a non-zero usage.
	SyntheticNonZeroUsage bool
	// RecoveryMintsNewIDs settles a recovered response under fresh ids
	// instead of the reserved ones.
	RecoveryMintsNewIDs bool
	// CancelLosesToComplete lets complete-looking reduced content settle as
	// an ordinary response under cancellation.
	CancelLosesToComplete bool
	// SnapshotShowsDeadLivePartial keeps the live partial in snapshots after
	// the stream is no longer owned (fault, close, settlement).
	SnapshotShowsDeadLivePartial bool
	// FrameAfterTerminal appends a frame for the terminal done/error event.
	FrameAfterTerminal bool
	// EmitEntryBeforeCommit emits entry_added before the settlement commit.
	EmitEntryBeforeCommit bool
	// ReplacementKeepsOldFrames omits the old list delete from a deferred
	// replacement intent.
	ReplacementKeepsOldFrames bool
}

var bugNames = map[string]func(*Bugs) *bool{
	"settle-without-delete":            func(b *Bugs) *bool { return &b.SettleWithoutDelete },
	"fence-ignores-response":           func(b *Bugs) *bool { return &b.FenceIgnoresResponse },
	"fence-at-enqueue":                 func(b *Bugs) *bool { return &b.FenceAtEnqueue },
	"skip-drain":                       func(b *Bugs) *bool { return &b.SkipDrain },
	"recovery-runs-after-response":     func(b *Bugs) *bool { return &b.RecoveryRunsAfterResponse },
	"synthetic-nonzero-usage":          func(b *Bugs) *bool { return &b.SyntheticNonZeroUsage },
	"recovery-mints-new-ids":           func(b *Bugs) *bool { return &b.RecoveryMintsNewIDs },
	"cancel-loses-to-complete":         func(b *Bugs) *bool { return &b.CancelLosesToComplete },
	"snapshot-shows-dead-live-partial": func(b *Bugs) *bool { return &b.SnapshotShowsDeadLivePartial },
	"frame-after-terminal":             func(b *Bugs) *bool { return &b.FrameAfterTerminal },
	"emit-entry-before-commit":         func(b *Bugs) *bool { return &b.EmitEntryBeforeCommit },
	"replacement-keeps-old-frames":     func(b *Bugs) *bool { return &b.ReplacementKeepsOldFrames },
}

// BugNames lists every injectable bug by name, sorted.
func BugNames() []string {
	out := make([]string, 0, len(bugNames))
	for n := range bugNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Set turns the named bug on.
func (b *Bugs) Set(name string) error {
	f, ok := bugNames[name]
	if !ok {
		return fmt.Errorf("lane: unknown bug %q (known: %v)", name, BugNames())
	}
	*f(b) = true
	return nil
}

// BugsByName returns Bugs with the named switches on.
func BugsByName(names ...string) (Bugs, error) {
	var b Bugs
	for _, n := range names {
		if err := b.Set(n); err != nil {
			return Bugs{}, err
		}
	}
	return b, nil
}

// Enabled lists the names of the switches that are on.
func (b Bugs) Enabled() []string {
	var out []string
	for _, n := range BugNames() {
		if *bugNames[n](&b) {
			out = append(out, n)
		}
	}
	return out
}
