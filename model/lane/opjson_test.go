package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// drawText is an id or a text: mostly plain, sometimes any string
// (controls, quotes, non-ASCII and invalid UTF-8 all reach the quoting).
func drawText(t *rapid.T, label string) string {
	return rapid.OneOf(rapid.SampledFrom([]string{"", "op", "r1", "u1", "s1", "main", `a"b\c`, "é\u2028\x01"}),
		rapid.String(), rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) })).Draw(t, label)
}

// drawNumber is any float64, with the integers and non-finite values JS
// writes specially.
func drawNumber(t *rapid.T, label string) float64 {
	return rapid.OneOf(rapid.Float64(), rapid.SampledFrom([]float64{0, 1, 1.5, 1e21, 1e-7, 1<<53 + 1}),
		rapid.Map(rapid.Int64(), func(v int64) float64 { return float64(v) })).Draw(t, label)
}

// drawOpaque is a run's settings or stream options: absent, or a parsed
// object (integer-like keys, nesting).
func drawOpaque(t *rapid.T, label string) pi.JSONValue {
	texts := []string{"", `{}`, `{"toolExecution":"sequential"}`, `{"b":1,"2":[true,null,"x"],"a":{"c":-0.5}}`, `[1,2]`, `"s"`}
	src := rapid.SampledFrom(texts).Draw(t, label)
	if src == "" {
		return pi.JSONValue{}
	}
	v, err := pi.ParseJSON(src)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func drawModel(t *rapid.T) *Model {
	now := drawNumber(t, "now")
	m := &Model{cfg: Config{Lane: drawText(t, "lane"), Now: func() float64 { return now },
		Limits: Limits{MaxTokens: drawNumber(t, "maxTokens"), ContextWindow: drawNumber(t, "contextWindow")}}}
	var cap *float64
	if rapid.Bool().Draw(t, "capped") {
		c := drawNumber(t, "cap")
		cap = &c
	}
	run := Run{Model: ModelRef{drawText(t, "provider"), drawText(t, "modelId")}, MaxAttempts: rapid.IntRange(-3, 1<<40).Draw(t, "maxAttempts"),
		BaseDelayMs: drawNumber(t, "base"), MaxAgentDelayMs: cap, ThinkingLevel: drawText(t, "thinking"),
		ActiveToolNames: rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return drawText(t, "tool") }), 0, 3).Draw(t, "tools"),
		Settings:        drawOpaque(t, "settings"), StreamOptions: drawOpaque(t, "streamOptions"), StepID: drawText(t, "step")}
	calls := rapid.SliceOfN(rapid.IntRange(0, 9), 0, 4).Draw(t, "calls")
	o := Op{
		At: rapid.SampledFrom([]string{AtStarting, AtReady, AtEffectPending, AtRetryWait, AtDeferredSuspend,
			AtDeferredEffect, AtCheckpoint, AtTools, AtSummaryDeciding, "other"}).Draw(t, "at"),
		CancelRequested: rapid.Bool().Draw(t, "cancel"), RequestedAt: drawNumber(t, "requestedAt"),
		LatestAssistantEntryID: drawText(t, "latest"),
		Continuation:           rapid.SampledFrom([]string{NeedAssistant, MayFinish, ""}).Draw(t, "continuation"),
		Attempt:                rapid.Int().Draw(t, "attempt"), NextAttempt: rapid.Int().Draw(t, "next"),
		NotBefore: drawNumber(t, "notBefore"), RetryError: drawText(t, "retryError"),
		ResponseEntryID: drawText(t, "resp"), UsageID: drawText(t, "usage"), Poll: rapid.Int().Draw(t, "poll"),
		SourceEntryID: drawText(t, "source"), ToolCalls: calls,
	}
	info := &opInfo{run: run, fromTip: drawText(t, "fromTip"), trigger: drawText(t, "trigger"), started: drawNumber(t, "started"),
		genTrigger: drawText(t, "genTrigger"), afterTools: rapid.Bool().Draw(t, "afterTools")}
	info.tools.turn = drawText(t, "turn")
	info.tools.ids = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) string { return drawText(t, "id") }), 0, 5).Draw(t, "ids")
	for range rapid.IntRange(0, 5).Draw(t, "ncalls") {
		info.tools.calls = append(info.tools.calls, toolCall{
			status: rapid.SampledFrom([]string{callPlanned, callEffectPending, callOutcomeReady, callCompleted, "x"}).Draw(t, "status"),
			replay: drawText(t, "replay"), terminate: rapid.Bool().Draw(t, "terminate")})
	}
	if o.Continuation != "" {
		cont, trigger := info.checkpointResume(o)
		info.readyFrom = checkpointPair{continuation: cont, trigger: trigger}
	}
	if rapid.Bool().Draw(t, "task") {
		cont, _ := info.checkpointResume(o)
		if rapid.Bool().Draw(t, "noContinuation") {
			cont = pi.JSONValue{}
		}
		info.task = &summaryTask{id: drawText(t, "taskId"), continuation: cont, trigger: drawText(t, "taskTrigger")}
	}
	m.ops = map[string]*opInfo{"op": info}
	m.st.Ops = map[string]Op{"op": o}
	if rapid.Bool().Draw(t, "result") {
		m.st.Results = map[string]Result{"op": {Status: drawText(t, "status"), ErrorCode: drawText(t, "code"),
			ErrorMessage: drawText(t, "message"), TipID: drawText(t, "tip"), FromTipID: drawText(t, "resultFrom")}}
	}
	m.st.Lane.Current, m.st.Lane.Last = drawText(t, "current"), drawText(t, "last")
	for range rapid.IntRange(0, 4).Draw(t, "inbox") {
		m.st.Lane.Inbox = append(m.st.Lane.Inbox, InboxItem{drawText(t, "entry"), drawText(t, "kind")})
	}
	return m
}

// TestStateJSONMatchesTrees: each writer of opjson.go writes, byte for
// byte, what serializing the value tree it replaces writes, and is unknown
// exactly where the tree is, for the op and for one the model has not.
func TestStateJSONMatchesTrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := drawModel(t)
		prefix := []byte(rapid.SampledFrom([]string{"", "x"}).Draw(t, "prefix"))
		check := func(what string, tree pi.JSONValue, treeOK bool, got []byte, ok bool) {
			t.Helper()
			want := ""
			if treeOK {
				want = string(prefix) + jsonText(tree)
			} else {
				want = string(prefix)
			}
			if ok != treeOK || string(got) != want {
				t.Fatalf("%s: wrote %q (%v), the tree %q (%v)", what, got, ok, want, treeOK)
			}
		}
		for _, op := range []string{"op", "unknown"} {
			tree, treeOK := m.opStateValue(op)
			got, ok := m.appendOpStateJSON(append([]byte(nil), prefix...), op)
			check("op state of "+op, tree, treeOK, got, ok)
			tree, treeOK = m.metaValue(op)
			got, ok = m.appendMetaJSON(append([]byte(nil), prefix...), op)
			check("meta of "+op, tree, treeOK, got, ok)
			tree, treeOK = m.resultValue(op)
			got, ok = m.appendResultJSON(append([]byte(nil), prefix...), op)
			check("result of "+op, tree, treeOK, got, ok)
		}
		check("lane state", m.laneStateValue(), true, m.appendLaneStateJSON(append([]byte(nil), prefix...)), true)
	})
}
