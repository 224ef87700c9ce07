package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/choice"
)

// The simulated runs answer tool calls with every kind of outcome pi's
// runtime/drive/tools.ts builds (a run, an error result, a terminating
// result, prepareToolCall's unavailable tool, truncatedOutcome,
// abortedOutcome, interruptedOutcome and a safe replay after a restart),
// and pass with the lockstep model comparing every transaction. Seeds are
// searched until each kind happened.
func TestToolOutcomesAreExercised(t *testing.T) {
	want := []string{"ran", "error-result", "terminated", "unavailable", "truncated", "aborted", "interrupted", "replayed"}
	reached := map[string]int{}
	missing := func() bool {
		for _, o := range want {
			if reached[o] == 0 {
				return true
			}
		}
		return false
	}
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	for seed := uint64(0); seed < 4000 && missing(); seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d: %s: %s", seed, out.Kind, out.Message)
		for _, o := range out.RaceOrders[rowToolOutcomes] {
			reached[o]++
		}
	}
	for _, o := range want {
		require.Positive(t, reached[o], "no run reached %s (reached %v)", o, reached)
	}
	t.Logf("tool outcomes reached: %v", reached)
}

// runtime/drive/tools.ts runParallel (pi's default): the simulated runs
// start a call while an earlier one is open and end calls out of call
// order, and pass with the lockstep model. Seeds are searched until both
// happened.
func TestParallelToolInterleavingsAreExercised(t *testing.T) {
	reached := map[string]int{}
	sc, ok := ScenarioByName(SwarmScenario)
	require.True(t, ok)
	for seed := uint64(0); seed < 1000 && (reached["overlapping-runs"] == 0 || reached["ended-out-of-order"] == 0); seed++ {
		out := sc.Run(choice.NewSeeded(seed), Options{})
		require.False(t, out.Failed, "seed %d: %s: %s", seed, out.Kind, out.Message)
		for _, o := range out.RaceOrders[rowToolOverlap] {
			reached[o]++
		}
	}
	require.Positive(t, reached["overlapping-runs"], "reached %v", reached)
	require.Positive(t, reached["ended-out-of-order"], "reached %v", reached)
	t.Logf("parallel interleavings reached: %v", reached)
}

// toolBatchState is a committed batch at `tools`: assistant entry a with
// tool calls c1 (placed as t1) and c2 (effect_pending as t2, its arguments
// stored), in a fresh store.
func toolBatchState(t *testing.T) (*specStore, *lane.OpState) {
	st := newSpecStore(envtest.NewClock(envtest.Epoch))
	s := &lane.OpState{At: lane.LeafTools, BatchAssistantEntryID: "a", BatchTurnID: "turn",
		Configuration: &lane.Configuration{ActiveToolNames: []string{"read"}},
		Calls: []lane.PlannedCall{{Status: lane.CallCompleted, SourceIndex: 1, ResultEntryID: "t1"},
			{Status: lane.CallEffectPending, SourceIndex: 2, ResultEntryID: "t2", Replay: "never"}}}
	asst := `{"role":"assistant","content":[{"type":"text","text":"x"},` +
		`{"type":"toolCall","id":"c1","name":"read","arguments":{"p":1}},{"type":"toolCall","id":"c2","name":"read","arguments":{"p":2}}],` +
		`"api":"openai-responses","provider":"openai","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1}`
	result := `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":2}`
	_, err := st.Commit([]store.Write{
		store.InsertEntry(store.Entry{ID: "u", Raw: []byte(`{"id":"u","parentId":null,"type":"message","message":{"role":"user","content":"q","timestamp":0}}`)}),
		store.InsertEntry(store.Entry{ID: "a", ParentID: pi.Str("u"), Raw: []byte(`{"id":"a","parentId":"u","type":"message","message":` + asst + `}`)}),
		store.InsertEntry(store.Entry{ID: "t1", ParentID: pi.Str("a"), Raw: []byte(`{"id":"t1","parentId":"a","type":"message","message":` + result + `}`)}),
		store.SetValueRaw(lane.ToolArgsAddr("op", "turn", 2), []byte(`{"p":2}`)),
		store.SetValueRaw(lane.OpStateAddr("op"), lane.MarshalState(s)),
	})
	require.NoError(t, err)
	return st, s
}

// The tool batch checker (runtime/drive/tools.ts publishToolIntent,
// tool-placement.ts commitPlacement) accepts a sound batch and rejects a
// call missing what its status stores, a result answering no call, and
// arguments that outlive their batch.
func TestCheckToolStateRejectsBrokenBatches(t *testing.T) {
	parse := func(b []byte) (pi.JSONValue, error) { return pi.ParseJSON(string(b)) }
	st, s := toolBatchState(t)
	require.NoError(t, checkToolState(st, "op", s, parse))

	st, s = toolBatchState(t)
	_, err := st.Commit([]store.Write{store.DeleteValueRaw(lane.ToolArgsAddr("op", "turn", 2))})
	require.NoError(t, err)
	require.ErrorContains(t, checkToolState(st, "op", s, parse), "needs its arguments")

	st, s = toolBatchState(t)
	_, err = st.Commit([]store.Write{store.InsertEntry(store.Entry{ID: "t9", ParentID: pi.Str("t1"),
		Raw: []byte(`{"id":"t9","parentId":"t1","type":"message","message":{"role":"toolResult","toolCallId":"c9","toolName":"read","content":[],"isError":true,"timestamp":3}}`)})})
	require.NoError(t, err)
	require.ErrorContains(t, checkToolState(st, "op", s, parse), "which is no tool call")

	st, s = toolBatchState(t)
	done := &lane.OpState{At: lane.LeafCheckpoint, TriggerEntryID: "t1", Continuation: lane.Continuation{Kind: lane.ContinueNeedAssistant}}
	_, err = st.Commit([]store.Write{store.SetValueRaw(lane.OpStateAddr("op"), lane.MarshalState(done))})
	require.NoError(t, err)
	require.ErrorContains(t, checkToolState(st, "op", done, parse), "outlives its batch")
	_ = s
}

// The wire check's pairing (replay's bound results cross next to their
// call) holds for a projected transcript and fails for a request that lost
// the result.
func TestResultsCrossRejectsALostResult(t *testing.T) {
	r := bareRunner()
	c := &wireChecker{r: r}
	call := &pi.AssistantMessage{Content: []pi.Content{pi.ToolCall{ID: "call_1_a", Name: "read", Arguments: pi.EmptyObject()}},
		API: simAPI, Provider: simProvider, Model: simModel, StopReason: pi.StopToolUse, Timestamp: 1}
	with := []pi.Appender{&pi.UserMessage{Text: "q"}, call,
		&pi.ToolResultMessage{ToolCallID: "call_1_a", ToolName: "read", Content: []pi.Content{pi.TextContent{Text: "contents of a.txt"}}, Timestamp: 2}}
	for _, wn := range replay.Wires {
		body, err := replay.Project(with, replay.Target{Wire: wn, Provider: simProvider, Model: simModel}, replay.Options{})
		require.NoError(t, err)
		require.True(t, c.resultsCross(wn, with, body), wn)
		lost, err := replay.Project(with[:2], replay.Target{Wire: wn, Provider: simProvider, Model: simModel}, replay.Options{})
		require.NoError(t, err)
		r2 := bareRunner()
		require.False(t, (&wireChecker{r: r2}).resultsCross(wn, with, lost), wn)
		require.True(t, r2.failed, wn)
	}
}
