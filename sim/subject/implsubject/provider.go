package implsubject

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/subject"
)

// scriptAPI is the api the scripted model reports (subject-driver.mjs's
// "frameproof-scripted").
const scriptAPI = "frameproof-scripted"

// stream is one provider request: the script it took, how many events the
// simulator released, and the lane's reads of them.
type stream struct {
	s        *Subject
	k        int
	resp     string // the response entry id it streams
	events   []*pi.Event
	next     int // events released
	queue    []*pi.Event
	wake     env.Completer // the lane waiting in Next
	done     bool          // a terminal event was released (or made)
	taken    int           // events the lane read
	frames   map[int][]byte
	reported int // events whose encoder output was reported
	encoded  []bool
}

// provider serves the lane's requests from the scripts queued by Script,
// one per request, as subject-driver.mjs's openStream does.
type provider struct{ s *Subject }

func (p provider) Stream(req lane.Request) lane.Stream {
	s := p.s
	st := &stream{s: s, k: len(s.streams), resp: req.ResponseEntryID, frames: map[int][]byte{}}
	scripted := len(s.scripts) > 0
	if scripted {
		st.events, s.scripts = s.scripts[0], s.scripts[1:]
	}
	s.streams = append(s.streams, st)
	// Messages stays 0: impl/lane's Request carries no context, and the
	// runner counts requests without reading it
	s.obs.Requests = append(s.obs.Requests, subject.Request{Stream: st.k, Scripted: scripted})
	if req.Abort != nil {
		s.proc.Go(fmt.Sprintf("abort-watch#%d", st.k), func() {
			if req.Abort.Wait() == nil && !st.done {
				st.abort()
			}
		})
	}
	return st
}

// release hands the next scripted event to the lane.
func (st *stream) release() {
	ev := st.events[st.next]
	st.next++
	st.push(ev)
}

// abort ends the request as pi-ai's providers end an aborted one: an error
// event with reason "aborted" carrying the latest partial (the driver's
// onAbort).
func (st *stream) abort() {
	var base *pi.AssistantMessage
	if st.next > 0 {
		last := st.events[st.next-1]
		base = last.Partial
		if base == nil {
			base = last.Message
		}
	}
	if base == nil {
		base = &pi.AssistantMessage{Content: []pi.Content{}, API: scriptAPI, Provider: subject.Provider,
			Model: st.s.model.ID, StopReason: pi.StopStop, Timestamp: st.s.clock.nowMs}
	}
	m := base.Clone()
	m.StopReason, m.ErrorMessage = pi.StopAborted, pi.Str("Request was aborted")
	st.push(&pi.Event{Type: pi.EventError, Reason: pi.StopAborted, Message: m})
}

func (st *stream) push(ev *pi.Event) {
	st.s.obs.Consumed = append(st.s.obs.Consumed, subject.Consumed{Stream: st.k, Index: st.next, Event: json.RawMessage(ev.AppendJSON(nil))})
	if ev.Type == pi.EventDone || ev.Type == pi.EventError {
		st.done = true
	}
	st.queue = append(st.queue, ev)
	if st.wake != nil {
		st.wake.Resolve(nil)
		st.wake = nil
	}
}

// Next hands the lane the oldest released event. Reading event i+1 means
// the lane finished with event i: its encoder output (a frame or none) is
// then reported, unless the lane was no longer encoding (closed or
// faulted: it only drains the stream).
func (st *stream) Next() (pi.Event, error) {
	st.finishPrevious()
	for len(st.queue) == 0 {
		st.wake = st.s.w.NewFuture("provider-next")
		if err := st.wake.Wait(); err != nil {
			return pi.Event{}, err
		}
	}
	ev := st.queue[0]
	st.queue = st.queue[1:]
	st.taken++
	st.encoded = append(st.encoded, st.s.encoding())
	return *ev, nil
}

// finishPrevious reports the encoder output of the event read last.
func (st *stream) finishPrevious() {
	i := st.taken - 1
	if i < 0 || i < st.reported || !st.encoded[i] {
		return
	}
	st.reported = i + 1
	ev := st.eventAt(i)
	if ev.Type == pi.EventDone || ev.Type == pi.EventError {
		return
	}
	f := json.RawMessage("null")
	if b, ok := st.frames[i]; ok {
		f = b
	}
	st.s.obs.Frames = append(st.s.obs.Frames, subject.Frame{Type: string(ev.Type), Frame: f})
}

// eventAt is the i-th event the lane read (released in order; an abort's
// error event is the last).
func (st *stream) eventAt(i int) *pi.Event {
	if i < st.next {
		return st.events[i]
	}
	return &pi.Event{Type: pi.EventError}
}

// onFrame records the encoder's frame for its event (lane.Config.OnFrame).
func (s *Subject) onFrame(r lane.FrameRecord) {
	if r.Outcome != lane.FrameEnqueued {
		return
	}
	for i := len(s.streams) - 1; i >= 0; i-- {
		if st := s.streams[i]; st.resp == r.ResponseEntryID {
			st.frames[r.EventIndex] = r.Frame
			return
		}
	}
}

func (s *Subject) openStreams() subject.Streams {
	out := subject.Streams{Requested: len(s.streams), Open: []subject.OpenStream{}}
	for _, st := range s.streams {
		if !st.done {
			out.Open = append(out.Open, subject.OpenStream{Stream: st.k, Next: st.next, Total: len(st.events)})
		}
	}
	return out
}
