package lanesim

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// prefixChecker compares each committed frame prefix with the model
// observer: the committed list reduces to what the observer says a reader
// must see after the event of the last committed frame (model/frames on the
// events the lane actually consumed).
type prefixChecker struct{ r *runner }

func (c *prefixChecker) committedFrame(fr lane.FrameRecord) {
	r := c.r
	s := r.streams[fr.ResponseEntryID]
	if s == nil || fr.EventIndex >= len(s.observed) {
		r.fail("model", "committed frame for event %d of %s that the provider never delivered", fr.EventIndex, fr.ResponseEntryID)
		return
	}
	els, err := r.committedFrames(fr.OperationID, fr.ResponseEntryID)
	if err != nil {
		r.fail("model", "read frames: %v", err)
		return
	}
	if len(els) == 0 || els[len(els)-1].Seq != fr.Seq {
		r.fail("model", "frame committed at seq %d is not the tail of %s:%s", fr.Seq, fr.OperationID, fr.ResponseEntryID)
		return
	}
	got, err := reduceElements(els)
	if err != nil {
		r.fail("model", "committed frames of %s do not reduce: %v", fr.ResponseEntryID, err)
		return
	}
	want := s.observed[fr.EventIndex]
	r.check(marshalMsg(got) == want, "model", "committed prefix of %s after event %d reduces to\n%s\nthe model observer says\n%s", fr.ResponseEntryID, fr.EventIndex, marshalMsg(got), want)
}

// committedReduction reduces every committed frame of op/resp in the
// reference store (all pages). A read or reduce error fails the run: the
// reference holds only frames the encoder wrote, so either is a finding,
// never a reason to skip the check.
func (r *runner) committedReduction(op, resp, where string) (*pi.AssistantMessage, bool) {
	m, _, ok := r.reduceCommitted(op, resp, where, 0)
	return m, ok
}

// budgetedReduction is what a snapshot or recovery of op/resp reads under
// the run's frame budget: the reduction of the first budget committed
// frames, and whether more were committed (0: all frames, pi's read).
func (r *runner) budgetedReduction(op, resp, where string) (*pi.AssistantMessage, bool, bool) {
	return r.reduceCommitted(op, resp, where, r.p.frameBudget)
}

func (r *runner) reduceCommitted(op, resp, where string, budget int) (m *pi.AssistantMessage, truncated, ok bool) {
	els, err := r.committedFrames(op, resp)
	if err != nil {
		r.fail("invariant", "%s: read the committed frames of %s: %v", where, resp, err)
		return nil, false, false
	}
	if budget > 0 && len(els) > budget {
		els, truncated = els[:budget], true
	}
	m, err = reduceElements(els)
	if err != nil {
		r.fail("invariant", "%s: the committed frames of %s do not reduce: %v", where, resp, err)
		return nil, false, false
	}
	return m, truncated, true
}

func reduceElements(els []store.ListElement) (*pi.AssistantMessage, error) {
	fs := make([]pi.Frame, 0, len(els))
	for _, e := range els {
		f, err := pi.ParseFrame(string(e.Value))
		if err != nil {
			return nil, err
		}
		fs = append(fs, *f)
	}
	return frames.Reduce(fs)
}

// committedFrames reads every committed frame of op/resp from the reference
// store, all pages (one page would hide the tail of a long stream).
func (r *runner) committedFrames(op, resp string) ([]store.ListElement, error) {
	const page = 10_000
	var els []store.ListElement
	var cursor *int64
	for {
		got, err := r.ref.ReadList(lane.FramesAddr(op, resp), store.ReadOptions{Cursor: cursor, Limit: page})
		if err != nil {
			return nil, err
		}
		els = append(els, got...)
		if len(got) < page {
			return els, nil
		}
		last := got[len(got)-1].Seq
		cursor = &last
	}
}

// noteBudgetedRecovery records (with the faults, so a campaign and a test
// see it) a recovery read that the frame budget cuts short: the reference
// holds more committed frames of the pending response than the budget.
func (r *runner) noteBudgetedRecovery() {
	if r.p.frameBudget == 0 {
		return
	}
	op, st := r.refOp()
	if st == nil || !st.At.IsEffectPending() {
		return
	}
	if _, truncated, ok := r.budgetedReduction(op, st.ResponseEntryID, "recovery read"); ok && truncated {
		r.fault(fmt.Sprintf("frame budget %d cuts the recovery of %s", r.p.frameBudget, st.ResponseEntryID))
	}
}
