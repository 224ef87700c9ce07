package lanesim

import (
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
	els, err := r.committedFrames(op, resp)
	if err != nil {
		r.fail("invariant", "%s: read the committed frames of %s: %v", where, resp, err)
		return nil, false
	}
	m, err := reduceElements(els)
	if err != nil {
		r.fail("invariant", "%s: the committed frames of %s do not reduce: %v", where, resp, err)
		return nil, false
	}
	return m, true
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
