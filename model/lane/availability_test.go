package lane

import (
	"strings"
	"testing"
)

// availableModel steps a run on a registry (windows) with tools to its
// generation step and returns what the step expects.
func availableModel(t *testing.T, windows map[ModelRef]float64, tools []ToolSpec, active []string) *Model {
	t.Helper()
	m := New(Config{Lane: "main", Now: func() float64 { return 1000 }, NewObserver: func() Observer { return &partialObserver{} },
		ContextWindows: windows, Tools: tools})
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: thresholdModel, MaxAttempts: 1, Compaction: &piCompaction,
		ActiveToolNames: active}))
	for _, kind := range []string{"start", "checkpoint"} {
		e, err := m.Step(false)
		must(t, err)
		if e.Kind != kind {
			t.Fatalf("step %+v, want %s", e, kind)
		}
		if kind == "checkpoint" {
			turns(t, m, 1) // the threshold read of a known model
			must(t, m.Checkpoint("s1"))
		}
		_, err = m.StepDone(true)
		must(t, err)
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "generate" {
		t.Fatalf("step %+v, want generate", e)
	}
	return m
}

// failedResult is the failed result's JSON the configuration failure
// committed, after its turn.
func failedResult(t *testing.T, m *Model) string {
	t.Helper()
	if err := m.Intent("op", "r1", "g1", 1); err == nil {
		t.Fatal("an intent was accepted for a run whose configuration is unavailable")
	}
	turns(t, m, 1)
	out, err := m.StepDone(true)
	must(t, err)
	if out != (Outcome{Kind: "settled", Status: "failed"}) {
		t.Fatalf("outcome %+v", out)
	}
	// runtime/drive/response.ts publishConfigurationFailure's run_end
	if ev := m.Events(); !strings.HasPrefix(ev[len(ev)-1], "run_end:failed error=") || !strings.HasSuffix(ev[len(ev)-1], " fromTipId=null tipId=u1 endedAt=1000") {
		t.Fatalf("events %v", ev)
	}
	ws, _ := m.TakeTX()
	for _, w := range ws {
		if w.Namespace == nsResult {
			return w.Value
		}
	}
	t.Fatalf("no result in %+v", ws)
	return ""
}

// runtime/drive/generation.ts prepareGeneration: a model the registry does
// not know fails the run before its intent (publishConfigurationFailure):
// model_unavailable with {provider, modelId}.
func TestModelUnknownModelFailsTheRun(t *testing.T) {
	other := ModelRef{"openai", "other"}
	m := New(Config{Lane: "main", Now: func() float64 { return 1000 }, NewObserver: func() Observer { return &partialObserver{} },
		ContextWindows: map[ModelRef]float64{other: 1e9}})
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: thresholdModel, MaxAttempts: 1, Compaction: &piCompaction}))
	for _, kind := range []string{"start", "checkpoint"} {
		_, err := m.Step(false)
		must(t, err)
		if kind == "checkpoint" {
			must(t, m.Checkpoint("s1")) // an unknown model asks no threshold question
		}
		_, err = m.StepDone(true)
		must(t, err)
	}
	if e, _ := m.Step(false); e.Kind != "generate" {
		t.Fatalf("step %+v", e)
	}
	got := failedResult(t, m)
	want := `"error":{"code":"model_unavailable","message":"The configured model is unavailable in this process","details":{"provider":"openai","modelId":"gpt"}}`
	if !strings.Contains(got, want) {
		t.Fatalf("result %s\nwant it to hold %s", got, want)
	}
}

// generation.ts prepareGeneration: active tool names missing from
// config.tools, in activeToolNames order, are configured_tools_unavailable.
func TestModelUnconfiguredActiveToolsFailTheRun(t *testing.T) {
	m := availableModel(t, map[ModelRef]float64{thresholdModel: 1e9}, []ToolSpec{{Name: "read"}}, []string{"ghost", "read", "spook"})
	got := failedResult(t, m)
	if want := `"details":{"tools":["ghost","spook"]}`; !strings.Contains(got, want) {
		t.Fatalf("result %s\nwant it to hold %s", got, want)
	}
}

// With no tool list (nil) nothing is checked, and a cancel before the
// failure's turn skips it (continueOperation).
func TestModelUnavailableChecksAndCancel(t *testing.T) {
	m := availableModel(t, map[ModelRef]float64{thresholdModel: 1e9}, nil, []string{"ghost"})
	must(t, m.Intent("op", "r1", "g1", 1))

	m = availableModel(t, map[ModelRef]float64{thresholdModel: 1e9}, []ToolSpec{}, []string{"ghost"})
	m.Cancel()
	if skipped, err := m.StepTurn(); err != nil || !skipped {
		t.Fatalf("turn: skipped %v, %v", skipped, err)
	}
	if out, err := m.StepDone(true); err != nil || out.Kind != "progress" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
}
