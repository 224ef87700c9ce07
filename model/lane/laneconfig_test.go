package lane

import (
	"strings"
	"testing"
)

func txString(ws []TXWrite) string {
	var s []string
	for _, w := range ws {
		s = append(s, w.String())
	}
	return strings.Join(s, "; ")
}

// runtime/harness.ts Harness.lane: a lane acquired for the first time
// commits [pi.branch.tip = null, pi.lane.config, pi.lane.state] in one TX;
// runtime/lane.ts setConfiguration commits pi.lane.config alone; the same
// configuration again commits nothing; acceptRun runs only on a lane that
// has the run's configuration.
func TestAcquireWritesLaneConfig(t *testing.T) {
	m := newModel()
	run := Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, ThinkingLevel: "off", MaxAttempts: 1}
	if err := m.StartRun("op", "u1", run); err == nil {
		t.Fatal("a run on a lane never acquired was accepted")
	}
	if !m.Acquire(runConfig(run)) {
		t.Fatal("a lane never acquired: no creation due")
	}
	ws, _ := m.TakeTX()
	want := `value set pi.branch.tip/main = null; value set pi.lane.config/main = {"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"off","activeToolNames":[]}; ` +
		`value set pi.lane.state/main = {"currentOperationId":null,"lastOperationId":null,"inbox":[]}`
	if got := txString(ws); got != want {
		t.Fatalf("creation TX:\n got %s\nwant %s", got, want)
	}
	if m.Acquire(runConfig(run)) {
		t.Fatal("the same configuration is due again")
	}
	other := run
	other.ActiveToolNames = []string{"read"}
	if err := m.StartRun("op", "u1", other); err == nil {
		t.Fatal("a run with another configuration than the lane's was accepted")
	}
	if !m.Acquire(runConfig(other)) {
		t.Fatal("a changed configuration is not due")
	}
	ws, _ = m.TakeTX()
	if got := txString(ws); got != `value set pi.lane.config/main = {"model":{"provider":"openai","modelId":"gpt"},"thinkingLevel":"off","activeToolNames":["read"]}` {
		t.Fatalf("setConfiguration TX: %s", got)
	}
	must(t, m.StartRun("op", "u1", other))
	if c := m.Committed().Config; !strings.Contains(c, `["read"]`) {
		t.Fatalf("committed config: %s", c)
	}
}

// runtime/drive/boundary.ts assistantReadyAtBoundary: the assistant step's
// configuration is the lane's at the boundary, not the one the run was
// accepted with.
func TestCheckpointReadsLaneConfig(t *testing.T) {
	m := newModel()
	run := Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, ThinkingLevel: "off", MaxAttempts: 1}
	must(t, startRunOn(m, "op", "u1", run))
	later := runConfig(run)
	later.ThinkingLevel = "high"
	m.Acquire(later) // a setConfiguration before the boundary
	toReady(t, m, "s1")
	if v, _ := m.opStateValue("op"); !strings.Contains(string(v.AppendJSON(nil)), `"thinkingLevel":"high"`) {
		t.Fatalf("ready state: %s", v.AppendJSON(nil))
	}
}

// runtime/lane.ts setModel, setThinkingLevel, setActiveTools (each one
// setConfiguration transaction and its config_update), after
// runtime/harness.ts Harness.lane's lane_created: a configuration that
// differs in two properties takes two transactions, model first, each
// writing the whole configuration.
func TestAcquireTakesOneSetterPerTransaction(t *testing.T) {
	m := newModel()
	run := Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, ThinkingLevel: "off", MaxAttempts: 1}
	m.Acquire(runConfig(run))
	other := run
	other.Model.ModelID, other.ActiveToolNames = "gpt-2", []string{"read"}
	var txs []string
	for m.Acquire(runConfig(other)) {
		ws, _ := m.TakeTX()
		txs = append(txs, txString(ws))
	}
	want := []string{
		`value set pi.lane.config/main = {"model":{"provider":"openai","modelId":"gpt-2"},"thinkingLevel":"off","activeToolNames":[]}`,
		`value set pi.lane.config/main = {"model":{"provider":"openai","modelId":"gpt-2"},"thinkingLevel":"off","activeToolNames":["read"]}`,
	}
	if strings.Join(txs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("setter TXs:\n%s", strings.Join(txs, "\n"))
	}
	if got := strings.Join(m.Events(), ","); got != "lane_created,config_update:model,config_update:activeTools" {
		t.Fatalf("events: %s", got)
	}
}
