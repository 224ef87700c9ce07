package lanesim

import (
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/sim/campaign"
)

func describe(op string, st *lane.OpState) string {
	if st == nil {
		if op == "" {
			return "idle"
		}
		return op + " without state"
	}
	s := op + " at " + string(st.At)
	if st.At.IsEffectPending() {
		s += " (response " + st.ResponseEntryID + ")"
	}
	return s
}

// checkSnapshot runs on snapshots taken at any scheduling point: a live
// partial only while this process owns the stream; otherwise for
// effect_pending the reduction of the committed frames (the same prefix
// activation reads); invariant 9 via sim/invariants. (Snapshots at step
// ends and reopens are also compared with the lockstep model.)
// snapshotPartialChecker checks the streaming message of every snapshot.
type snapshotPartialChecker struct{ r *runner }

func (c *snapshotPartialChecker) snapshot(ln *lane.Lane, snap *lane.Snapshot, _ string) {
	r := c.r
	st := snap.State
	if snap.Live {
		// Owned: this healthy process still consumes the stream, has not
		// settled it, and the stream still holds the fence. After an
		// external finalization the loop keeps consuming its (now fenced)
		// stream, but like pi's client fold the snapshot no longer shows it.
		c := r.cur
		owned := ln.Fault() == nil && !r.closed && c != nil && !c.settled &&
			st != nil && st.At.IsEffectPending() && c.req.ResponseEntryID == st.ResponseEntryID
		r.check(owned, campaign.KindInvariant, "snapshot shows a live partial the process does not own (state %s)", describe(snap.OperationID, st))
	}
	if !r.inv.check("snapshot", snap, nil) {
		return
	}
	if st != nil && st.At.IsEffectPending() {
		if !snap.Live {
			if want, truncated, ok := r.prefix.budgetedReduction(snap.OperationID, st.ResponseEntryID, "snapshot"); ok {
				shown, committed := marshalMsg(snap.StreamingMessage), marshalMsg(want)
				r.check(shown == committed, campaign.KindInvariant, "snapshot partial of %s is not the committed prefix:\n%s\nwant\n%s", st.ResponseEntryID, shown, committed)
				r.check(snap.FramesTruncated == truncated, campaign.KindInvariant, "snapshot of %s says frames truncated %t under frame budget %d, want %t", st.ResponseEntryID, snap.FramesTruncated, r.p.frameBudget, truncated)
			}
			r.races.snapshotShows(st.ResponseEntryID)
		}
	}
}

// captureChecker checks a capture taken beside every snapshot: pi's
// captureLaneSnapshot shows, for an effect_pending response, the reduction
// of its committed frames, whatever the live stream has reached — at one
// cut of the reference between the call and its return (capturecut.go).
type captureChecker struct {
	r *runner
	// cutLogs collect, for each capture waiting on the line, the reference
	// after every acknowledged commit (capturecut.go; the commit point
	// calls noteCut)
	cutLogs []*cutLog
}

func (k *captureChecker) snapshot(ln *lane.Lane, _ *lane.Snapshot, who string) {
	r := k.r
	cuts := k.watchCuts()
	c, err := ln.Capture()
	k.unwatchCuts(cuts)
	if err != nil {
		if !r.captureRefused(ln, err) {
			r.fail(campaign.KindInvariant, "capture (%s): %v", who, err)
		}
		return
	}
	if c.Live {
		r.check(false, campaign.KindInvariant, "capture (%s) shows the live partial", who)
	} else {
		r.pass()
	}
	got := cutOf(c)
	var want []string
	for _, cut := range cuts.cuts {
		if cut == got {
			return
		}
		want = append(want, cut.String())
	}
	r.fail(campaign.KindInvariant, "capture (%s) is not the committed reduction:\n%s\nwant one of\n%s", who, got, strings.Join(want, "\n"))
}
