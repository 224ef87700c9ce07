package lanesim

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/campaign"
)

// prefixChecker compares each committed frame prefix with the model
// observer: the committed list reduces to what the observer says a reader
// must see after the event of the last committed frame (model/frames on the
// events the lane actually consumed). It owns the reference's frame lists
// as last read and reduced: the snapshot, capture and recovery checks read
// their reductions through it.
type prefixChecker struct {
	r *runner
	// lists are the reference's frame lists as last read, by list key
	lists map[string]*reducedList
}

func (c *prefixChecker) committedFrame(fr lane.FrameRecord) {
	r := c.r
	s := r.streams[fr.ResponseEntryID]
	if s == nil || fr.EventIndex >= len(s.observed) {
		r.fail(campaign.KindModel, "committed frame for event %d of %s that the provider never delivered", fr.EventIndex, fr.ResponseEntryID)
		return
	}
	l, err := c.committedList(fr.OperationID, fr.ResponseEntryID)
	if err != nil {
		r.fail(campaign.KindModel, "read frames: %v", err)
		return
	}
	if tail, ok := l.tailSeq(); !ok || tail != fr.Seq {
		r.fail(campaign.KindModel, "frame committed at seq %d is not the tail of %s:%s", fr.Seq, fr.OperationID, fr.ResponseEntryID)
		return
	}
	got, err := l.reduce()
	if err != nil {
		r.fail(campaign.KindModel, "committed frames of %s do not reduce: %v", fr.ResponseEntryID, err)
		return
	}
	want, reduced := s.observed[fr.EventIndex], r.msgJSON(got)
	// r.check's arguments are boxed only for a failure, not at every frame
	if string(reduced) == want {
		r.checks++
		return
	}
	r.check(false, campaign.KindModel, "committed prefix of %s after event %d reduces to\n%s\nthe model observer says\n%s", fr.ResponseEntryID, fr.EventIndex, string(reduced), want)
}

// committedReduction reduces every committed frame of op/resp in the
// reference store (all pages). A read or reduce error fails the run: the
// reference holds only frames the encoder wrote, so either is a finding,
// never a reason to skip the check.
func (c *prefixChecker) committedReduction(op, resp, where string) (*pi.AssistantMessage, bool) {
	m, _, ok := c.reduceCommitted(op, resp, where, 0)
	return m, ok
}

// budgetedReduction is what a snapshot or recovery of op/resp reads under
// the run's frame budget: the reduction of the first budget committed
// frames, and whether more were committed (0: all frames, pi's read).
func (c *prefixChecker) budgetedReduction(op, resp, where string) (*pi.AssistantMessage, bool, bool) {
	return c.reduceCommitted(op, resp, where, c.r.p.frameBudget)
}

func (c *prefixChecker) reduceCommitted(op, resp, where string, budget int) (m *pi.AssistantMessage, truncated, ok bool) {
	r := c.r
	l, err := c.committedList(op, resp)
	if err != nil {
		r.fail(campaign.KindInvariant, "%s: read the committed frames of %s: %v", where, resp, err)
		return nil, false, false
	}
	if budget > 0 && len(l.seqs) > budget {
		m, err = reduceValues(l.vals[:budget])
		truncated = true
	} else {
		m, err = l.reduce()
	}
	if err != nil {
		r.fail(campaign.KindInvariant, "%s: the committed frames of %s do not reduce: %v", where, resp, err)
		return nil, false, false
	}
	return m, truncated, true
}

// reducedList is one frame list of the reference as last read, with its
// frames parsed and applied to a reducer in order. The prefix checks read a
// list after every committed frame; without it each check re-parsed the
// whole list (quadratic in a stream's length).
type reducedList struct {
	seqs []int64
	vals []string
	red  *frames.Reducer
	// parseErr is the first frame that did not parse, reduceErr the first
	// the reducer refused: reduceValues parses every frame before it
	// reduces, so a parse error anywhere wins over a reduce error
	parseErr, reduceErr error
}

// reduce is what reduceValues says of the list's frames.
func (l *reducedList) reduce() (*pi.AssistantMessage, error) {
	switch {
	case l.parseErr != nil:
		return nil, l.parseErr
	case l.reduceErr != nil:
		return nil, l.reduceErr
	}
	return l.red.Message()
}

// reduceValues parses and reduces frames from scratch: a budgeted read,
// which stops short of the list's end, cannot reuse the list's reducer.
func reduceValues(vals []string) (*pi.AssistantMessage, error) {
	fs := make([]pi.Frame, 0, len(vals))
	for _, v := range vals {
		f, err := pi.ParseFrame(v)
		if err != nil {
			return nil, err
		}
		fs = append(fs, *f)
	}
	return frames.Reduce(fs)
}

// tailSeq is the seq of the list's last frame (false: the list is empty).
func (l *reducedList) tailSeq() (int64, bool) {
	if len(l.seqs) == 0 {
		return 0, false
	}
	return l.seqs[len(l.seqs)-1], true
}

// committedList reads every committed frame of op/resp from the reference
// (all pages) and brings its reducedList up to date. What was read before
// is kept only while it is still, seq for seq and byte for byte, the head
// of the list: a list deleted at settlement and re-created by a later
// operation, or anything else, starts afresh.
func (c *prefixChecker) committedList(op, resp string) (*reducedList, error) {
	a := lane.FramesAddr(op, resp)
	els, err := c.committedFrames(a)
	if err != nil {
		return nil, err
	}
	key := a.Key
	l := c.lists[key]
	if l == nil || !l.heads(els) {
		l = &reducedList{red: frames.NewReducer()}
		if c.lists == nil {
			c.lists = map[string]*reducedList{}
		}
		c.lists[key] = l
	}
	for _, e := range els[len(l.seqs):] {
		l.add(e, c.r.memo.frameAt)
	}
	return l, nil
}

// heads reports whether the frames read before are the head of els.
func (l *reducedList) heads(els []mstore.Stored) bool {
	if len(l.seqs) > len(els) {
		return false
	}
	for i, seq := range l.seqs {
		if els[i].Seq != seq || els[i].Value != l.vals[i] {
			return false
		}
	}
	return true
}

// add parses the next frame (through parse, the run's memo) and applies it.
func (l *reducedList) add(e mstore.Stored, parse func(seq int64, value string) (*pi.Frame, error)) {
	l.seqs, l.vals = append(l.seqs, e.Seq), append(l.vals, e.Value)
	if l.parseErr != nil {
		return
	}
	f, err := parse(e.Seq, e.Value)
	if err != nil {
		l.parseErr = err
		return
	}
	if l.reduceErr == nil {
		l.reduceErr = l.red.Apply(f)
	}
}

// committedFrames reads every committed frame of the frame list a from the
// reference store, all pages (one page would hide the tail of a long
// stream). It reads model/store directly: the frames' bytes are shared, not
// copied.
func (c *prefixChecker) committedFrames(a store.Address) ([]mstore.Stored, error) {
	const page = 10_000
	addr := mstore.Addr{Namespace: a.Namespace, Key: a.Key}
	var els []mstore.Stored
	var cursor *int64
	for {
		got, err := c.r.ref.spec.ReadList(addr, cursor, false, page)
		if err != nil {
			return nil, err
		}
		if cursor == nil && len(got) < page {
			return got, nil // one page, the read's own slice: no copy of it
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
func (c *prefixChecker) noteBudgetedRecovery() {
	r := c.r
	if r.p.frameBudget == 0 {
		return
	}
	op, st := r.refOp()
	if st == nil || !st.At.IsEffectPending() {
		return
	}
	if _, truncated, ok := c.budgetedReduction(op, st.ResponseEntryID, "recovery read"); ok && truncated {
		r.fault(fmt.Sprintf("frame budget %d cuts the recovery of %s", r.p.frameBudget, st.ResponseEntryID))
	}
}
