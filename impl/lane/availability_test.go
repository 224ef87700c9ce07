package lane

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// availRun is a run with pi's compaction settings (a registry's threshold
// check reads them), compaction off.
func availRun() RunOptions {
	return compactionRun(`{"enabled":false,"reserveTokens":0,"keepRecentTokens":0}`)
}

// registry knows only the models named.
func registry(known ...ModelRef) Models {
	return func(m ModelRef) (float64, bool) {
		for _, k := range known {
			if k == m {
				return 1e9, true
			}
		}
		return 0, false
	}
}

// runtime/drive/generation.ts prepareGeneration + response.ts
// publishConfigurationFailure: a run whose model the process's registry
// (options.models.getModel) does not know fails before its intent, with no
// provider request: result failed with {code:"model_unavailable",
// message, details:{provider, modelId}}, op state and meta deleted, and
// run_end {status:"failed", error, fromTipId, tipId, endedAt}.
func TestRunWithAnUnknownModelFailsBeforeItsIntent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.models = registry(ModelRef{Provider: "openai", ModelID: "other"})
		l := h.open()
		op := h.startRun(availRun())
		h.resetEvents()
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		require.Equal(t, "failed", r.Status)
		require.Empty(t, h.provider.requests)
		require.Nil(t, h.stateOf(op))
		require.Contains(t, h.resultOf(op), `"status":"failed","error":{"code":"model_unavailable","message":"The configured model is unavailable in this process","details":{"provider":"openai","modelId":"gpt-test"}}`)
		require.Equal(t, []string{"run_end"}, h.eventTypes())
		ev := h.eventOf(EvRunEnd, 0)
		require.Equal(t, "failed", ev.Status)
		require.Equal(t, CodeModelUnavailable, ev.Error.Code)
		require.Equal(t, MsgModelUnavailable, ev.Error.Message)
		require.NotNil(t, ev.TipID)
		require.Positive(t, ev.EndedAt)
	})
}

// generation.ts prepareGeneration: with the model known, active tool names
// missing from config.tools (in activeToolNames order) fail the run with
// configured_tools_unavailable {tools}; a nil Config.Tools (no tool list:
// the caller answers calls) and a nil Config.Models (no registry) check
// nothing.
func TestRunWithAnUnconfiguredActiveToolFailsBeforeItsIntent(t *testing.T) {
	h := newHarness(t, backends[0])
	h.models = registry(ModelRef{Provider: "openai", ModelID: "gpt-test"})
	h.tools = []Tool{echoTool("read", "", false, nil)}
	l := h.open()
	opts := availRun()
	opts.Configuration.ActiveToolNames = []string{"ghost", "read", "spook"}
	op := h.startRun(opts)
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind)
	require.Empty(t, h.provider.requests)
	require.Contains(t, h.resultOf(op), `"error":{"code":"configured_tools_unavailable","message":"One or more configured tools are unavailable in this process","details":{"tools":["ghost","spook"]}}`)

	// no tool list, no registry: the provider is asked
	h2 := newHarness(t, backends[0])
	h2.provider.add(helloScript())
	l2 := h2.open()
	h2.startRun(opts)
	r, err = l2.Step(StepOptions{})
	require.NoError(t, err)
	require.Len(t, h2.provider.requests, 1)
	require.NotEqual(t, StepSettled, r.Kind)
}

// response.ts publishConfigurationFailure runs through continueOperation:
// a cancel requested before its turn declines it (nothing commits) and the
// next step ends the run aborted (reconcile.ts).
func TestConfigurationFailureDeclinesACancelledRun(t *testing.T) {
	h := newHarness(t, backends[0])
	h.models = registry()
	l := h.open()
	op := h.startRun(availRun())
	require.NoError(t, l.RequestCancel())
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, "aborted", r.Status)
	require.Contains(t, h.resultOf(op), `"status":"aborted"`)
}

// runtime/drive/deferred.ts prepareDeferredPoll: with a permit, a
// suspended run whose model the registry no longer knows fails with
// model_unavailable (publishConfigurationFailure); without one it waits.
func TestDeferredPollWithAnUnknownModelFails(t *testing.T) {
	h := newHarness(t, backends[0])
	op := suspend(t, h)
	require.NoError(t, h.lane.Close())
	h.models = registry()
	l := h.open()
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepWaiting, r.Kind)
	r, err = l.Step(StepOptions{DeferredPermit: true})
	require.NoError(t, err)
	require.Equal(t, StepSettled, r.Kind)
	require.Len(t, h.provider.requests, 1) // the generation's only
	require.Contains(t, h.resultOf(op), `"code":"model_unavailable"`)
}
