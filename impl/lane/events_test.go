package lane

import (
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/env"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// runtime/drive/response.ts publishResponse (retry_scheduled; retry_end and
// turn_end once a later attempt settles) and generation.ts runRetryWait
// (retry_start at the retry-ready commit).
func TestRetryEventsFollowPublishResponse(t *testing.T) {
	h := newHarness(t, backends[0])
	a := newAcc()
	h.provider.add(seq(a.start(), a.fail(pi.StopError, "overloaded")), helloScript())
	l := h.open()
	h.start(3)
	r, err := l.Drive(StepOptions{WaitForRetry: true})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind)
	require.Equal(t, []string{
		"lane_created", "run_start", "message_start", "message_end", "entry_added", "turn_start", "message_start", "message_end", "entry_added", "usage", "retry_scheduled",
		"retry_start",
		"message_start", "message_update", "message_update", "message_update", "message_update", "message_end",
		"entry_added", "usage", "retry_end", "turn_end",
		"run_end"}, h.eventTypes())
}

// response.ts: a deferred response suspends the run (run_suspend after
// turn_end); deferred.ts publishPollIntent resumes it (run_resume before the
// poll's turn_start).
func TestDeferredEventsFollowPublishResponse(t *testing.T) {
	h := newHarness(t, backends[0])
	handle := pi.DeferredHandle{Provider: "openai", ModelID: "gpt-test", API: newAcc().m.API, ID: "job"}
	a, b := newAcc(), newAcc()
	h.provider.add(seq(a.start(), a.deferred(handle)), seq(b.start(), b.deferred(handle)))
	l := h.open()
	h.start(1)
	_, err := l.Drive(StepOptions{})
	require.NoError(t, err)
	_, err = l.Step(StepOptions{DeferredPermit: true})
	require.NoError(t, err)
	require.Equal(t, []string{
		"lane_created", "run_start", "message_start", "message_end", "entry_added", "turn_start", "message_start", "message_end", "entry_added", "usage", "turn_end", "run_suspend",
		"run_resume", "turn_start", "message_start", "message_end", "entry_added", "usage", "turn_end", "run_suspend"}, h.eventTypes())
}

// execution/assistant.ts consumeAssistantStream + runtime/lane.ts seal: after
// a frame commit faults the harness, the loop keeps consuming the stream to
// its end (the sealed lane aborted the request's signal so the provider ends
// it); nothing settles.
func TestFrameCommitFailureKeepsConsumingTheStream(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	h.start(1)
	a := newAcc()
	s := seq(a.start(), a.textStart(0), a.textDelta(0, "a"), a.textDelta(0, "b"), a.textDelta(0, "c"), a.textEnd(0, "abc"), a.done(pi.StopStop))
	consumed := 0
	s.before = func(i int) {
		consumed = i + 1
		if i == 3 { // hold the stream until the first frame commit has faulted
			for deadline := time.Now().Add(10 * time.Second); l.Fault() == nil && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
	}
	h.provider.add(s)
	h.gated.mu.Lock()
	h.gated.failAt = h.gated.commits + 2 // the intent commits, the first frame append fails
	h.gated.mu.Unlock()
	_, err := l.Drive(StepOptions{})
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.Equal(t, len(s.events), consumed, "the stream was abandoned after the fault")
	require.True(t, h.provider.requests[0].Abort.Done(), "the request's abort signal was not raised")
	require.NotContains(t, h.responseEventTypes(), "entry_added")
}

// runtime/lane.ts acceptRun: the run's acceptance commit emits run_start
// (runId, startedAt, lane) first in its batch, before anything the drive
// emits.
func TestStartRunEmitsRunStart(t *testing.T) {
	h := newHarness(t, backends[0])
	h.open()
	op := h.start(1)
	h.mu.Lock()
	events := append([]Event(nil), h.events...)
	h.mu.Unlock()
	v, err := h.store.GetValue(OpMetaAddr(op))
	require.NoError(t, err)
	meta, err := decodeMeta(v.Value)
	require.NoError(t, err)
	require.Len(t, events, 5)
	// runtime/harness.ts Harness.lane: the lane's creation precedes the run
	require.Equal(t, Event{Type: EvLaneCreated, Lane: "main"}, events[0])
	events = events[1:]
	require.Equal(t, Event{Type: EvRunStart, Lane: "main", RunID: op, StartedAt: meta.StartedAt}, events[0])
	// transcript.ts committedEntryEvents: the prompt entry's lifecycle, its
	// entry_added without a runId and with the entry's committed seq
	user := events[1].Prompt
	require.NotNil(t, user)
	require.Equal(t, "hi", user.Text)
	userID := *h.lane.view.tip
	require.Equal(t, Event{Type: EvMessageStart, Lane: "main", RunID: op, Prompt: user}, events[1])
	require.Equal(t, Event{Type: EvMessageEnd, Lane: "main", RunID: op, Prompt: user, EntryID: userID}, events[2])
	es, err := h.store.Entries()
	require.NoError(t, err)
	require.Equal(t, Event{Type: EvEntryAdded, Lane: "main", Prompt: user, EntryID: userID, Seq: es[0].Seq}, events[3])
}

// runtime/reducer.ts reduceLaneSnapshot: run_start installs the operation
// in a client's fold, so a client watching an idle lane follows the run's
// streaming message without capturing again.
func TestClientFoldFollowsARunFromRunStart(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	c, err := l.Capture()
	require.NoError(t, err)
	f := NewClientFold(c)
	shown := 0
	h.listener = func(ev Event) env.Future {
		f.Apply(ev)
		if ev.Type == EvMessageUpdate && f.StreamingMessage != nil {
			shown++
		}
		return nil
	}
	op := h.start(1)
	require.Equal(t, op, f.OperationID)
	require.Equal(t, []string{*h.lane.view.tip}, f.Entries, "the prompt entry's entry_added reached the fold")
	h.provider.add(helloScript())
	_, err = l.Drive(StepOptions{})
	require.NoError(t, err)
	require.Positive(t, shown, "the fold showed the live partial")
	require.Nil(t, f.StreamingMessage)
	require.Equal(t, "", f.OperationID, "run_end cleared it")
}
