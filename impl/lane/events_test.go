package lane

import (
	"testing"

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
		"turn_start", "message_start", "message_end", "entry_added", "usage", "retry_scheduled",
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
		"turn_start", "message_start", "message_end", "entry_added", "usage", "turn_end", "run_suspend",
		"run_resume", "turn_start", "message_start", "message_end", "entry_added", "usage", "turn_end", "run_suspend"}, h.eventTypes())
}
