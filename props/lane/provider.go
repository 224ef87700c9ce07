package lane

import (
	"errors"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/codec"
	"pgregory.net/rapid"
)

// errLost ends a stream whose process the driver crashed or closed.
var errLost = errors.New("props/lane: process lost")

// Endings of a generated response.
const (
	endStop = iota
	endToolUse
	endRetryable
	endFatal
	endDeferred
	endBadDeferred
	endSetupError
	endOverflow // a context overflow: the settlement prepares a compaction
	nEndings
)

// Stream is the provider: a random pi stream from props/codec's generator
// (live partial running ahead, interleaved blocks) with a random ending.
func (d *driver) Stream(req lane.Request) lane.Stream {
	d.feedIntent()
	d.mu.Lock()
	d.failLocked(d.model.Admit())
	d.mu.Unlock()
	end := rapid.IntRange(0, nEndings-1).Draw(d.t, "ending")
	if d.opts.Tools && rapid.Bool().Draw(d.t, "toolBias") {
		end = endToolUse
	}
	if d.opts.Deferred && rapid.Bool().Draw(d.t, "deferredBias") {
		end = endDeferred
	}
	if end == endBadDeferred && req.Deferred != nil {
		// Like pi (publishResponse validates only an assistant
		// generation's handle), impl/lane accepts a poll's invalid handle
		// at settlement and faults on the next poll or cancellation
		// (impl/lane deferred_handle_test.go pins that); the model does
		// not model the fault, so keep polls' handles valid here.
		end = endDeferred
	}
	var evs []*pi.Event
	if end != endSetupError {
		for _, ev := range codec.GenStream().Draw(d.t, "stream").Events {
			if ev.Type != pi.EventDone && ev.Type != pi.EventError {
				evs = append(evs, ev)
			}
		}
	}
	final := &pi.AssistantMessage{Content: []pi.Content{}, API: "openai-responses", Provider: "openai", Model: "gpt-test", Timestamp: 1_700_000_000_000}
	if n := len(evs); n > 0 && evs[n-1].Partial != nil {
		final = evs[n-1].Partial.Clone()
	}
	final.Usage = pi.Usage{Input: 10, Output: 5, TotalTokens: 15}
	term := &pi.Event{Type: pi.EventDone, Message: final}
	switch end {
	case endStop:
		final.StopReason = pi.StopStop
	case endToolUse:
		final.StopReason = pi.StopToolUse
	case endRetryable, endSetupError:
		final.StopReason, final.ErrorMessage, term.Type = pi.StopError, pi.Str("503 service unavailable"), pi.EventError
	case endFatal:
		final.StopReason, final.ErrorMessage, term.Type = pi.StopError, pi.Str("invalid api key"), pi.EventError
	case endOverflow:
		final.StopReason, final.ErrorMessage, term.Type = pi.StopError, pi.Str("prompt is too long: 213462 tokens > 200000 maximum"), pi.EventError
	case endDeferred, endBadDeferred:
		id := "job-1"
		if end == endBadDeferred {
			id = ""
		}
		final.StopReason = pi.StopDeferred
		final.Deferred = &pi.DeferredHandle{Provider: "openai", ModelID: "gpt-test", API: final.API, ID: id}
	}
	if d.opts.Tools && end == endToolUse {
		addToolCall(d, final)
	}
	term.Reason = final.StopReason
	return &script{d: d, events: append(evs, term)}
}

type script struct {
	d      *driver
	events []*pi.Event
	i      int
	last   *pi.AssistantMessage
}

// Next is where the driver makes its mid-stream choices: compare, release
// parked commits, cancel, finalize, crash or close — then hand out the
// next event and tell the model.
func (s *script) Next() (pi.Event, error) {
	d := s.d
	d.g.quiesce()
	if d.isLost() || d.failure() != nil {
		d.stop()
		return pi.Event{}, errLost
	}
	d.check("next", true)
	for r := rapid.IntRange(0, 3).Draw(d.t, "release"); r > 0 && d.g.release(); r-- {
	}
	switch rapid.IntRange(0, 60).Draw(d.t, "midStream") {
	case 0:
		if !d.cancelled {
			d.mu.Lock()
			d.model.BeginAbort()
			d.mu.Unlock()
			err := d.lane.RequestCancel()
			d.g.quiesce()
			if !d.isLost() {
				d.fail(err)
				d.mu.Lock()
				d.model.Cancel()
				d.mu.Unlock()
				d.cancelled = true
				d.honorAbort = rapid.Bool().Draw(d.t, "honorAbort")
			}
		}
	case 1:
		if !d.finalized {
			r := d.finalizeReq()
			d.mu.Lock()
			d.finalizes = append(d.finalizes, r)
			d.mu.Unlock()
			d.lane.FinalizeAsync(r.status, opErr(r))
			d.finalized = true
			d.g.quiesce()
		}
	case 2: // crash: nothing later reaches storage
		d.g.kill()
		d.markLost()
	case 3: // close: a controlled crash
		_ = d.lane.Close()
		d.g.quiesce()
		d.mu.Lock()
		d.model.Close()
		d.mu.Unlock()
		d.markLost()
	}
	if d.isLost() || d.failure() != nil {
		d.stop()
		return pi.Event{}, errLost
	}
	var ev *pi.Event
	if d.cancelled && d.honorAbort {
		m := &pi.AssistantMessage{Content: []pi.Content{}, API: "openai-responses", Provider: "openai", Model: "gpt-test", Timestamp: 1_700_000_000_000}
		if s.last != nil {
			m = s.last.Clone()
		}
		m.StopReason, m.ErrorMessage = pi.StopAborted, pi.Str("Request was aborted")
		ev = &pi.Event{Type: pi.EventError, Reason: pi.StopAborted, Message: m}
		s.i = len(s.events)
	} else {
		ev = s.events[s.i]
		s.i++
	}
	if ev.Partial != nil {
		s.last = ev.Partial
	}
	d.mu.Lock()
	d.failLocked(d.model.ProviderEvent(ev))
	d.mu.Unlock()
	return *ev, nil
}

// stop ends the process after a crash or a disagreement: every later commit
// fails, nothing more is fed to the model.
func (d *driver) stop() {
	d.g.kill()
	d.markLost()
}
