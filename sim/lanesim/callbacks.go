package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
)

func (r *runner) onStreamOpen(s *simStream) {
	resp := s.req.ResponseEntryID
	r.streams[resp] = s
	r.cur = s
	r.ls.admit()
	s.gen = r.gen
	if r.poller.pending != "" && s.req.Deferred != nil {
		r.race(RowPollReplacement, OrderReplacedAtOnce)
		r.poller.pending = ""
	}
	r.intent.streamOpen(s)
}

func (r *runner) onStreamEnd(s *simStream) {
	resp := s.req.ResponseEntryID
	if len(r.tracks[resp]) == 0 {
		return
	}
	for _, t := range r.tracks[resp] {
		if t.outcome == lane.FrameEnqueued {
			r.race(RowAppendSettle, OrderSettlementAwaitsAppends)
			return
		}
	}
	r.race(RowAppendSettle, OrderAppendsDoneAtEnd)
}

// onFrame follows the frame pipeline: race rows 1, 3, 4, the porcupine
// history and the model/frames check of every committed prefix (the frame
// rules themselves — no terminal frames, FIFO, fence — are the lockstep
// model's and sim/invariants' 4 and 5).
func (r *runner) onFrame(fr lane.FrameRecord) {
	if !r.alive() {
		return
	}
	r.emitFrame(fr)
	if r.failed {
		return
	}
	resp := fr.ResponseEntryID
	switch fr.Outcome {
	case lane.FrameEnqueued:
		ts := r.tracks[resp]
		if n := len(ts); n > 0 && ts[n-1].gen == r.gen {
			if ts[n-1].outcome == lane.FrameCommitted {
				r.race(RowAppendNext, OrderCommittedBeforeNext)
			} else if ts[n-1].outcome == lane.FrameEnqueued {
				r.race(RowAppendNext, OrderNextQueuedBehind)
			}
		}
		r.tracks[resp] = append(ts, &frameTrack{rec: fr, outcome: lane.FrameEnqueued, gen: r.gen})
		r.linz.appendCall(fr)
		return
	}
	var t *frameTrack
	for _, c := range r.tracks[resp] {
		if c.outcome == lane.FrameEnqueued && c.rec.EventIndex == fr.EventIndex && c.gen == r.gen {
			t = c
			break
		}
	}
	if t == nil {
		return // FrameFailed, or the model already reported it
	}
	t.outcome, t.seq = fr.Outcome, fr.Seq
	r.linz.appendReturn(fr)
	switch fr.Outcome {
	case lane.FrameCommitted:
		if r.listener.delivered[resp][fr.EventIndex] {
			r.race(RowUpdateCommit, OrderEventFirst)
		} else {
			r.race(RowUpdateCommit, OrderCommitFirst)
		}
		r.emitCommittedFrame(fr)
	case lane.FrameDeclined:
		if r.finalizer.finalized[fr.OperationID] {
			r.race(RowAppendFinalize, OrderFinalizeFirst)
		}
	}
}

// afterResponse: the model says whether the hook may run now (only for a
// live stream this process finished, once, after every accepted append
// settled); invariant 6 checks the drain at message_end.
func (r *runner) afterResponse(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
	if r.alive() {
		r.ls.afterResponse()
	}
	return m, nil
}
