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
			_, err := drive(ln, false)
			return none(err)
		}, nil
	case subject.CallResume:
		return func() (json.RawMessage, error) {
			_, err := drive(ln, true)
			return none(err)
		}, nil
	case subject.CallDrive:
		return func() (json.RawMessage, error) {
			r, err := drive(ln, false)
			if err != nil {
				return nil, err
			}
			return driveOutcome(arg, r)
		}, nil
	case subject.CallAbort:
		return func() (json.RawMessage, error) { return abortOutcome(ln.Abort()) }, nil
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

// drive is pi's drive of the current operation (runtime/lane.ts drive,
// waitForRetry: true), as prompt (no deferred-poll permit), resume (one:
// pollDeferred) and the drive call (none) issue it: it runs until the
// operation settles, nothing is current, or a deferred leaf waits for a
// permit the drive does not carry (pi's prompt and resume return
// {status:"suspended"}); retry waits are slept through on the virtual
// clock.
func drive(ln *lane.Lane, permit bool) (lane.StepResult, error) {
	r, err := ln.Drive(lane.StepOptions{DeferredPermit: permit, WaitForRetry: true})
	if err != nil {
		return r, err
	}
	if r.Kind == lane.StepWaiting && r.Reason != "deferred" {
		return r, fmt.Errorf("implsubject: the run waits (%s), which no scenario of the boundary reaches", r.Reason)
	}
	return r, nil
}

// driveOutcome is Lane.drive's result as the driver reports it: pi's
// Result.ok of the drive's outcome, {kind:"waiting", operationId,
// reason:"deferred"} on a deferred leaf without a permit (pi adds the
// source handle, which the simulator does not read), {kind:"settled"}
// otherwise.
func driveOutcome(op string, r lane.StepResult) (json.RawMessage, error) {
	type outcome struct {
		Kind        string `json:"kind"`
		OperationID string `json:"operationId,omitempty"`
		Reason      string `json:"reason,omitempty"`
	}
	out := outcome{Kind: "settled"}
	if r.Kind == lane.StepWaiting {
		out = outcome{Kind: "waiting", OperationID: op, Reason: r.Reason}
	}
	return json.Marshal(struct {
		OK    bool    `json:"ok"`
		Value outcome `json:"value"`
	}{OK: true, Value: out})
}

// abortOutcome is Lane.abort's result as the driver reports it: pi's
// Result.ok of {operationId, steer, followUp}, or its Result.err of
// NoActiveOperation (a value, not a failed call); other errors fail the
// call.
func abortOutcome(a lane.Aborted, err error) (json.RawMessage, error) {
	if errors.Is(err, lane.ErrNoOperation) {
		type refusal struct {
			Tag     string `json:"_tag"`
			Message string `json:"message"`
		}
		return json.Marshal(struct {
			OK    bool    `json:"ok"`
			Error refusal `json:"error"`
		}{Error: refusal{Tag: "NoActiveOperation", Message: err.Error()}})
	}
	if err != nil {
		return nil, err
	}
	type aborted struct {
		OperationID string         `json:"operationId"`
		Steer       []pi.JSONValue `json:"steer"`
		FollowUp    []pi.JSONValue `json:"followUp"`
	}
	return json.Marshal(struct {
		OK    bool    `json:"ok"`
		Value aborted `json:"value"`
	}{OK: true, Value: aborted{OperationID: a.OperationID, Steer: nonNil(a.Steer), FollowUp: nonNil(a.FollowUp)}})
}

// nonNil is ms, or an empty list: pi reports [] for no message.
func nonNil(ms []pi.JSONValue) []pi.JSONValue {
	if ms == nil {
		return []pi.JSONValue{}
	}
	return ms
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
