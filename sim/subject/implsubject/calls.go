package implsubject

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/subject"
)

// startCall runs a lane call as an actor of the current process (it dies
// with it); its completion is reported in Obs.Calls.
func (s *Subject) startCall(name subject.Call, fn func() (json.RawMessage, error)) {
	k := s.calls
	s.calls++
	s.proc.Go(fmt.Sprintf("call-%s#%d", name, k), func() {
		v, err := fn()
		r := subject.CallResult{Call: k, Name: name, OK: err == nil, Value: v}
		if err != nil {
			r.Error = err.Error()
		}
		s.obs.Calls = append(s.obs.Calls, r)
	})
}

// errNoLane: a lane call before Open.
var errNoLane = errors.New("implsubject: no lane yet (Open first)")

// Start issues a lane call, not awaited.
func (s *Subject) Start(c subject.Call, arg string) (subject.Obs, error) {
	return s.do(func() error {
		if s.ln == nil {
			return errNoLane
		}
		fn, err := s.call(c, arg)
		if err != nil {
			return err
		}
		s.startCall(c, fn)
		return nil
	})
}

// call is the lane call c as impl/lane runs it.
func (s *Subject) call(c subject.Call, arg string) (func() (json.RawMessage, error), error) {
	ln := s.ln
	none := func(err error) (json.RawMessage, error) { return nil, err }
	switch c {
	case subject.CallPrompt:
		return func() (json.RawMessage, error) {
			if _, err := ln.StartRun(s.runOptions(arg)); err != nil {
				return nil, err
			}
			return none(drive(ln))
		}, nil
	case subject.CallResume:
		return func() (json.RawMessage, error) { return none(drive(ln)) }, nil
	case subject.CallAbort:
		return func() (json.RawMessage, error) { return none(ln.RequestCancel()) }, nil
	case subject.CallSteer, subject.CallFollowUp, subject.CallNextRun:
		return func() (json.RawMessage, error) {
			_, err := ln.Enqueue(lane.QueueKind(c), arg)
			return none(err)
		}, nil
	case subject.CallCancelQueued:
		return func() (json.RawMessage, error) {
			r, err := ln.CancelQueued(arg)
			if err != nil {
				return nil, err
			}
			return json.Marshal(string(r))
		}, nil
	case subject.CallClose:
		s.closing = true
		return func() (json.RawMessage, error) {
			err := ln.Close()
			if errors.Is(err, lane.ErrClosed) {
				err = nil // sealed with its own cause: the close itself
			}
			if cerr := s.storage.Close(); err == nil {
				err = cerr
			}
			return none(err)
		}, nil
	case subject.CallWatch:
		return func() (json.RawMessage, error) {
			snap, err := ln.Capture()
			if err != nil {
				return nil, err
			}
			return snapshotJSON(snap)
		}, nil
	}
	return nil, fmt.Errorf("implsubject: unknown lane call %q", c)
}

// drive is pi's drive of a run (runtime/lane.ts prompt and resume): steps
// until the run settles or nothing is current, sleeping through retry
// waits on the virtual clock.
func drive(ln *lane.Lane) error {
	for {
		r, err := ln.Drive(lane.StepOptions{WaitForRetry: true})
		if err != nil {
			return err
		}
		switch r.Kind {
		case lane.StepSettled, lane.StepIdle:
			return nil
		case lane.StepWaiting:
			return fmt.Errorf("implsubject: the run waits (%s), which no scenario of the boundary reaches", r.Reason)
		}
	}
}

// runOptions is a prompt's run: the process's configuration, retry policy
// and stream options, pi's captured settings.
func (s *Subject) runOptions(text string) lane.RunOptions {
	settings, _ := pi.ParseJSON(subject.HarnessSettings)
	return lane.RunOptions{UserText: text, Configuration: s.gen.Configuration, RetryPolicy: s.gen.RetryPolicy,
		StreamOptions: s.gen.StreamOptions, Settings: settings}
}

// snapshotJSON is the part of pi's LaneSnapshot (captureLaneSnapshot) the
// simulator reads: the transcript's entry ids and the operation with its
// status and streaming message.
func snapshotJSON(snap *lane.Snapshot) (json.RawMessage, error) {
	type entry struct {
		ID string `json:"id"`
	}
	type operation struct {
		ID               string          `json:"id"`
		Status           string          `json:"status"`
		StreamingMessage json.RawMessage `json:"streamingMessage,omitempty"`
	}
	out := struct {
		Transcript []entry    `json:"transcript"`
		Operation  *operation `json:"operation"`
	}{Transcript: []entry{}}
	for _, e := range snap.Transcript {
		out.Transcript = append(out.Transcript, entry{ID: e.ID})
	}
	if snap.OperationID != "" {
		op := &operation{ID: snap.OperationID, Status: "open"}
		if snap.State != nil && snap.State.Control.CancelRequested {
			op.Status = "aborting"
		}
		switch {
		case snap.StreamingMessage != nil:
			op.StreamingMessage = snap.StreamingMessage.AppendJSON(nil)
		case !snap.StreamingRaw.IsUndefined():
			op.StreamingMessage = snap.StreamingRaw.AppendJSON(nil)
		}
		out.Operation = op
	}
	return json.Marshal(out)
}

// Script queues the events of the provider's next response.
func (s *Subject) Script(events []json.RawMessage) error {
	_, err := s.do(func() error {
		evs := make([]*pi.Event, len(events))
		for i, raw := range events {
			ev, err := pi.ParseStreamEvent(string(raw))
			if err != nil {
				return fmt.Errorf("implsubject: script event %d: %w", i, err)
			}
			evs[i] = ev
		}
		s.scripts = append(s.scripts, evs)
		return nil
	})
	return err
}

// ReleaseEvent hands the oldest open stream's next event to the lane.
func (s *Subject) ReleaseEvent() (subject.Obs, error) {
	return s.do(func() error {
		for _, st := range s.streams {
			if !st.done && st.next < len(st.events) {
				st.release()
				return nil
			}
		}
		return errors.New("implsubject: no open stream has an event to release")
	})
}

// ReleaseCommit releases parked commit i (FIFO: only 0).
func (s *Subject) ReleaseCommit(i int) (subject.Obs, error) {
	return s.do(func() error {
		if i != 0 {
			return errors.New("implsubject: parked commits are released in FIFO order: index must be 0")
		}
		return s.releaseOldest()
	})
}

// DropParked drops the parked commits and refuses every later one.
func (s *Subject) DropParked() (subject.Obs, error) {
	return s.do(func() error { s.dropParked(); return nil })
}

// Advance sets the clock, firing the due timers.
func (s *Subject) Advance(now float64) (subject.Obs, error) {
	return s.do(func() error {
		if s.clock == nil {
			return errNoLane
		}
		s.clock.advance(now)
		return nil
	})
}

// Observe reports without acting.
func (s *Subject) Observe() (subject.Obs, error) { return s.do(func() error { return nil }) }
