package lane

import (
	"math"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

var testLeaves = []Leaf{LeafStarting, LeafAssistantReady, LeafAssistantEffectPending, LeafAssistantRetryWait,
	LeafDeferredSuspended, LeafDeferredEffectPending, LeafCheckpoint, LeafTools, LeafSummaryDeciding, "other"}

func drawText(t *rapid.T, label string) string {
	return rapid.OneOf(rapid.SampledFrom([]string{"", "a", "op-1", "é\"\\\n\u2028<>&", "\x00\x1f"}), rapid.String()).Draw(t, label)
}

func drawNum(t *rapid.T, label string) float64 {
	return rapid.OneOf(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e21, 1e-7, 123456789.125,
		math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}), rapid.Float64()).Draw(t, label)
}

func drawOpaque(t *rapid.T, label string) pi.JSONValue {
	s := rapid.SampledFrom([]string{"", "{}", `{"a":1,"b":[true,null,"x"]}`, `{"2":1,"1":{"z":"é"}}`, "null", `"s"`, "[1,2]"}).Draw(t, label)
	if s == "" {
		return pi.JSONValue{}
	}
	v, err := pi.ParseJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func drawConfig(t *rapid.T) Configuration {
	var names []string
	if rapid.Bool().Draw(t, "namesNil") == false {
		names = rapid.SliceOfN(rapid.StringMatching(`[a-z"\\]{0,4}`), 0, 3).Draw(t, "names")
	}
	return Configuration{Model: ModelRef{Provider: drawText(t, "provider"), ModelID: drawText(t, "modelId")},
		ThinkingLevel: drawText(t, "thinking"), ActiveToolNames: names}
}

func drawState(t *rapid.T) *OpState {
	s := &OpState{At: rapid.SampledFrom(testLeaves).Draw(t, "at")}
	if rapid.Bool().Draw(t, "cancel") {
		s.Control = Control{CancelRequested: true, RequestedAt: drawNum(t, "requestedAt")}
	}
	s.Settings = drawOpaque(t, "settings")
	if rapid.Bool().Draw(t, "latest") {
		id := drawText(t, "latestId")
		s.LatestAssistantEntryID = &id
	}
	var limit *float64
	if rapid.Bool().Draw(t, "limit") {
		n := drawNum(t, "limitMs")
		limit = &n
	}
	s.Gen = &GenerationContext{StepID: drawText(t, "step"), TriggerEntryID: drawText(t, "trigger"), Configuration: drawConfig(t),
		StreamOptions:        drawOpaque(t, "streamOptions"),
		RetryPolicy:          RetryPolicy{MaxAttempts: rapid.IntRange(-3, 1<<40).Draw(t, "max"), BaseDelayMs: drawNum(t, "base"), MaxAgentDelayMs: limit},
		OverflowRecoveryUsed: rapid.Bool().Draw(t, "overflow")}
	s.Attempt, s.NextAttempt, s.Poll = rapid.Int().Draw(t, "attempt"), rapid.Int().Draw(t, "next"), rapid.Int().Draw(t, "poll")
	s.NotBefore, s.IntendedOutputLimit, s.ContextWindow = drawNum(t, "notBefore"), drawNum(t, "limitOut"), drawNum(t, "window")
	s.ErrorMessage, s.ResponseEntryID, s.UsageID = drawText(t, "err"), drawText(t, "resp"), drawText(t, "usage")
	s.StepID, s.SourceEntryID, s.TriggerEntryID = drawText(t, "stepId"), drawText(t, "source"), drawText(t, "triggerId")
	cfg := drawConfig(t)
	s.Configuration, s.StreamOptions = &cfg, drawOpaque(t, "deferredOptions")
	s.Continuation = Continuation{Kind: rapid.SampledFrom([]string{ContinueNeedAssistant, ContinueMayFinish, "x"}).Draw(t, "kind"),
		OverflowRecoveryUsed: rapid.Bool().Draw(t, "cOverflow"), IncludeFinalAssistant: rapid.Bool().Draw(t, "final")}
	s.BatchAssistantEntryID, s.BatchTurnID = drawText(t, "batchEntry"), drawText(t, "turn")
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "calls"); i < n; i++ {
		s.Calls = append(s.Calls, PlannedCall{Status: rapid.SampledFrom([]string{"", CallPlanned, CallEffectPending, CallOutcomeReady, CallCompleted, "odd"}).Draw(t, "status"),
			SourceIndex: rapid.Int().Draw(t, "src"), ResultEntryID: drawText(t, "result"), Replay: drawText(t, "replay"), Terminate: rapid.Bool().Draw(t, "terminate")})
	}
	s.Task = drawOpaque(t, "task")
	return s
}

// MarshalState writes exactly the bytes of the state's value (Value, the
// reference built member by member), for every leaf and every member.
func TestAppendStateIsValueJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawState(t)
		want := string(s.Value().AppendJSON(nil))
		if got := string(MarshalState(s)); got != want {
			t.Fatalf("MarshalState:\n got %s\nwant %s", got, want)
		}
		if got := string(appendState([]byte("xy"), s)); got != "xy"+want {
			t.Fatalf("appendState after a prefix: %s", got)
		}
	})
}
