package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
)

// eventOf is the recorded event of type typ (the n-th, from 0).
func (h *harness) eventOf(typ EventType, n int) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.events {
		if e.Type == typ {
			if n == 0 {
				return e
			}
			n--
		}
	}
	h.t.Fatalf("no %s event #%d", typ, n)
	return Event{}
}

// runtime/drive/response.ts publishResponse: retry_scheduled carries
// {step, attempt (the next), maxAttempts, delayMs, notBefore,
// errorMessage}, retry_end {step, attempt, success, finalError?};
// generation.ts runRetryWait: retry_start {step, attempt}; run_end
// {status, error?, fromTipId, tipId, endedAt} (response.ts on a failed
// settlement, boundary.ts finishRunBoundary on completion).
func TestRetryAndRunEndEventsCarryPisFields(t *testing.T) {
	h := newHarness(t, backends[0])
	a, b := newAcc(), newAcc()
	h.provider.add(seq(a.start(), a.fail(pi.StopError, "overloaded")), seq(b.start(), b.fail(pi.StopError, "503 again")))
	l := h.open()
	h.start(2)
	_, err := l.Drive(StepOptions{WaitForRetry: true})
	require.NoError(t, err)

	sched := h.eventOf(EvRetryScheduled, 0)
	require.NotEmpty(t, sched.TurnID)
	require.Equal(t, 2, sched.Attempt)
	require.Equal(t, 2, sched.MaxAttempts)
	require.Equal(t, 1000.0, sched.DelayMs) // baseDelayMs·2^0
	require.Positive(t, sched.NotBefore)
	require.Equal(t, "overloaded", sched.ErrorMessage)

	start := h.eventOf(EvRetryStart, 0)
	require.Equal(t, sched.TurnID, start.TurnID)
	require.Equal(t, 2, start.Attempt)

	end := h.eventOf(EvRetryEnd, 0)
	require.Equal(t, 2, end.Attempt)
	require.False(t, end.Success)
	require.Equal(t, pi.Str("503 again"), end.FinalError)

	runEnd := h.eventOf(EvRunEnd, 0)
	require.Equal(t, "failed", runEnd.Status)
	require.Equal(t, &OpError{Code: "assistant_error", Message: "503 again"}, runEnd.Error)
	require.Nil(t, runEnd.FromTipID, "the lane's first run starts at no tip (null)")
	require.NotNil(t, runEnd.TipID) // the failed response's entry
	require.Positive(t, runEnd.EndedAt)
}

// boundary.ts finishRunBoundary: a completed run's run_end has no error,
// and its tipId is the branch tip it finished at.
func TestCompletedRunEndCarriesTips(t *testing.T) {
	h := newHarness(t, backends[0])
	h.provider.add(helloScript())
	l := h.open()
	h.start(1)
	_, err := l.Drive(StepOptions{})
	require.NoError(t, err)
	runEnd := h.eventOf(EvRunEnd, 0)
	require.Equal(t, "completed", runEnd.Status)
	require.Nil(t, runEnd.Error)
	s, err := l.Capture()
	require.NoError(t, err)
	require.Equal(t, s.Transcript[len(s.Transcript)-1].ID, *runEnd.TipID)
	require.Nil(t, runEnd.FromTipID)
	require.Positive(t, runEnd.EndedAt)
}
