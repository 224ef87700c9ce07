package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

const defaultConfigJSON = `{"model":{"provider":"openai","modelId":"gpt-test"},"thinkingLevel":"off","activeToolNames":[]}`

func (h *harness) storedValue(a store.Address) string {
	v, err := h.store.GetValue(a)
	require.NoError(h.t, err)
	if v == nil {
		return ""
	}
	return string(v.Value)
}

// runtime/harness.ts Harness.lane: a lane acquired for the first time
// commits [pi.branch.tip null (only when no tip is stored), pi.lane.config
// {model{provider,modelId},thinkingLevel,activeToolNames}, pi.lane.state
// {currentOperationId:null,lastOperationId:null,inbox:[]}] in one
// transaction, before acceptRun's; an acquired lane commits nothing more.
func TestFirstRunAcquiresTheLane(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		_, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		require.Equal(t, []string{"value:set:pi.branch.tip", "value:set:pi.lane.config", "value:set:pi.lane.state",
			"entry::", "value:set:pi.branch.tip", "value:set:pi.op.meta", "value:set:pi.op.state", "value:set:pi.lane.state"}, h.lastTX(8))
		require.Equal(t, int64(1), h.tele[0].Seq)
		require.Equal(t, defaultConfigJSON, h.storedValue(LaneConfigAddr("main")))
		require.NoError(t, l.Finalize("aborted", nil))

		n := len(h.tele)
		_, err = l.StartRun(defaultRun(1))
		require.NoError(t, err)
		require.Equal(t, "entry", h.tele[n].Kind, "an acquired lane with the same configuration writes no config")
	})

	// a branch that has a tip but no lane yet keeps its tip
	h := newHarness(t, backends[0])
	_, err := h.store.Commit([]store.Write{store.SetValueRaw(BranchTipAddr("main"), []byte("null"))})
	require.NoError(t, err)
	l := h.open()
	_, err = l.StartRun(defaultRun(1))
	require.NoError(t, err)
	require.Equal(t, []string{"value:set:pi.lane.config", "value:set:pi.lane.state", "entry::"}, h.lastTX(7)[:3])
}

// runtime/lane.ts setConfiguration (setModel, setThinkingLevel,
// setActiveTools): a run with another configuration than the lane's first
// commits pi.lane.config alone, one transaction per changed property (the
// whole configuration each time), each followed by its config_update
// {property, previous, value, lane}, all before acceptRun's run_start.
func TestRunWithAnotherConfigurationCommitsItFirst(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	require.NoError(t, l.Finalize("aborted", nil))
	require.NotEmpty(t, op)
	other := defaultRun(1)
	other.Configuration.Model.ModelID = "gpt-other"
	other.Configuration.ActiveToolNames = []string{"read"}
	n, e := len(h.tele), len(h.events)
	_, err := l.StartRun(other)
	require.NoError(t, err)
	for i := range 2 {
		require.Equal(t, "value:set:pi.lane.config", h.tele[n+i].Kind+":"+h.tele[n+i].Op+":"+h.tele[n+i].Namespace)
		require.Equal(t, h.tele[n].Seq+int64(i), h.tele[n+i].Seq, "one transaction per setter")
	}
	require.Equal(t, "entry", h.tele[n+2].Kind)
	require.Equal(t, `{"model":{"provider":"openai","modelId":"gpt-other"},"thinkingLevel":"off","activeToolNames":["read"]}`,
		h.storedValue(LaneConfigAddr("main")))
	evs := h.events[e:]
	require.Equal(t, EvConfigUpdate, evs[0].Type)
	require.Equal(t, "model", evs[0].Property)
	require.Equal(t, `{"provider":"openai","modelId":"gpt-test"}`, string(evs[0].Previous.AppendJSON(nil)))
	require.Equal(t, `{"provider":"openai","modelId":"gpt-other"}`, string(evs[0].Value.AppendJSON(nil)))
	require.Equal(t, "activeTools", evs[1].Property)
	require.Equal(t, `[]`, string(evs[1].Previous.AppendJSON(nil)))
	require.Equal(t, `["read"]`, string(evs[1].Value.AppendJSON(nil)))
	require.Equal(t, "main", evs[1].Lane)
	require.Equal(t, EvRunStart, evs[2].Type)
}

// runtime/harness.ts Harness.lane: lane_created {lane, at} follows the
// creation transaction; at is the stored branch tip of a branch that has no
// lane yet (null when none is stored).
func TestLaneCreatedNamesTheStoredTip(t *testing.T) {
	h := newHarness(t, backends[0])
	_, err := h.store.Commit([]store.Write{store.SetValueRaw(BranchTipAddr("main"), []byte(`"e0"`))})
	require.NoError(t, err)
	l := h.open()
	require.NoError(t, l.acquire(l.seedConfiguration(defaultRun(1).Configuration), true))
	require.Len(t, h.events, 1)
	require.Equal(t, EvLaneCreated, h.events[0].Type)
	require.Equal(t, "e0", *h.events[0].At)
	require.NoError(t, l.acquire(l.seedConfiguration(defaultRun(1).Configuration), true))
	require.Len(t, h.events, 1, "an acquired lane with the same configuration emits nothing")
}

// runtime/drive/boundary.ts assistantReadyAtBoundary: the boundary's
// configuration is the lane's (state.configuration, restored from
// pi.lane.config by restore.ts), not the process's options: a process
// reopened at the checkpoint with another seed configuration mints the
// step with the stored one, and the harness options' retry policy.
func TestReopenedBoundaryReadsLaneConfig(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		_, err = l.Step(StepOptions{})
		require.NoError(t, err)
		require.NoError(t, l.Close())
		cfg := h.config()
		seed := defaultRun(1).Configuration
		seed.Model.ModelID = "seed-model"
		cfg.Generation = &GenerationConfig{Configuration: seed, RetryPolicy: RetryPolicy{MaxAttempts: 2, BaseDelayMs: 5}}
		l, err = Open(cfg)
		require.NoError(t, err)
		_, err = l.Step(StepOptions{})
		require.NoError(t, err)
		st := h.stateJSON(op)
		require.Contains(t, st, `"configuration":`+defaultConfigJSON)
		require.Contains(t, st, `"retryPolicy":{"maxAttempts":2,"baseDelayMs":5}`)
		require.Equal(t, defaultConfigJSON, h.storedValue(LaneConfigAddr("main")), "the seed does not replace a stored configuration")
	})
}

// runtime/restore.ts classifyLaneStorage: a lane is its tip, its config
// and its state together; a tip alone or nothing is a lane not yet
// acquired; any other mix is refused with pi's message.
func TestRestoreRefusesIncompleteLane(t *testing.T) {
	tip := store.SetValueRaw(BranchTipAddr("main"), []byte("null"))
	config := store.SetValueRaw(LaneConfigAddr("main"), []byte(defaultConfigJSON))
	state := store.SetValueRaw(LaneStateAddr("main"), LaneState{}.raw())
	for _, c := range []struct {
		writes []store.Write
		want   string
	}{
		{nil, ""},
		{[]store.Write{tip}, ""},
		{[]store.Write{tip, config, state}, ""},
		{[]store.Write{tip, state}, `Lane "main" is missing lane.config`},
		{[]store.Write{config, state}, `Lane "main" is missing branch.tip`},
		{[]store.Write{tip, config}, `Lane "main" is missing lane.state`},
		{[]store.Write{state}, `Lane "main" is missing branch.tip`},
	} {
		h := newHarness(t, backends[0])
		if len(c.writes) > 0 {
			_, err := h.store.Commit(c.writes)
			require.NoError(t, err)
		}
		_, err := Open(h.config())
		if c.want == "" {
			require.NoError(t, err)
			continue
		}
		require.EqualError(t, err, c.want)
	}
}

// runtime/lane.ts acceptRun: a run on a lane with a current operation is
// refused (LaneBusy) and commits nothing, so the configuration it brings
// does not replace the lane's either.
func TestBusyRunLeavesTheLaneConfiguration(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	other := defaultRun(1)
	other.Configuration.Model.ModelID = "gpt-other"
	n := len(h.tele)
	_, err := l.StartRun(other)
	require.EqualError(t, err, "lane: start run: operation "+op+" is still current")
	require.Len(t, h.tele, n, "a refused run commits nothing")
	require.Equal(t, defaultConfigJSON, h.storedValue(LaneConfigAddr("main")))
}

// A stored pi.lane.config that is not pi's LaneConfiguration (session/
// types.ts) refuses the restore with the lane, the value and the member
// that is wrong; restore.ts classifies the lane's values before reading
// them, so an incomplete lane is refused as such whatever they hold.
func TestRestoreRefusesMalformedLaneConfig(t *testing.T) {
	for raw, want := range map[string]string{
		`null`:          `is null, not an object`,
		`["m"]`:         `is array, not an object`,
		`{}`:            `model is undefined, not an object`,
		`{"model":"m"}`: `model is string, not an object`,
		`{"model":{"provider":1,"modelId":"a"},"thinkingLevel":"off","activeToolNames":[]}`:           `model.provider is number, not a string`,
		`{"model":{"provider":"p"},"thinkingLevel":"off","activeToolNames":[]}`:                       `model.modelId is undefined, not a string`,
		`{"model":{"provider":"p","modelId":"a"},"activeToolNames":[]}`:                               `thinkingLevel is undefined, not a string`,
		`{"model":{"provider":"p","modelId":"a"},"thinkingLevel":"off"}`:                              `activeToolNames is undefined, not an array`,
		`{"model":{"provider":"p","modelId":"a"},"thinkingLevel":"off","activeToolNames":["read",3]}`: `activeToolNames[1] is number, not a string`,
	} {
		h := newHarness(t, backends[0])
		_, err := h.store.Commit([]store.Write{
			store.SetValueRaw(BranchTipAddr("main"), []byte("null")),
			store.SetValueRaw(LaneConfigAddr("main"), []byte(raw)),
			store.SetValueRaw(LaneStateAddr("main"), LaneState{}.raw()),
		})
		require.NoError(t, err)
		_, err = Open(h.config())
		require.EqualError(t, err, `lane: restore "main": pi.lane.config: `+want, raw)
	}

	h := newHarness(t, backends[0])
	_, err := h.store.Commit([]store.Write{
		store.SetValueRaw(LaneConfigAddr("main"), []byte(defaultConfigJSON)),
		store.SetValueRaw(LaneStateAddr("main"), []byte(`{"currentOperationId":7}`)),
	})
	require.NoError(t, err)
	_, err = Open(h.config())
	require.EqualError(t, err, `Lane "main" is missing branch.tip`)

	// session/values.ts branchTip holds an entry id or null, nothing else
	h = newHarness(t, backends[0])
	_, err = h.store.Commit([]store.Write{store.SetValueRaw(BranchTipAddr("main"), []byte(`5`))})
	require.NoError(t, err)
	_, err = Open(h.config())
	require.EqualError(t, err, `lane: restore "main": pi.branch.tip is number, not a string or null`)
}

// runtime/harness.ts createAgentHarness: the lane's seed thinking level is
// options.thinkingLevel ?? "off", so a configuration without one stores
// "off", and a later run without one finds the lane's configuration.
func TestSeedWithoutThinkingLevelStoresOff(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	run := defaultRun(1)
	run.Configuration.ThinkingLevel = ""
	_, err := l.StartRun(run)
	require.NoError(t, err)
	require.Equal(t, defaultConfigJSON, h.storedValue(LaneConfigAddr("main")))
	require.NoError(t, l.Finalize("aborted", nil))
	n := len(h.tele)
	_, err = l.StartRun(run)
	require.NoError(t, err)
	require.Equal(t, "entry", h.tele[n].Kind, "the same configuration writes no config")
}
