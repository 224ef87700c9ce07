package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/store"

	"github.com/stretchr/testify/require"
)

// runtime/harness.ts Harness.lane: acquiring a lane that has no
// pi.lane.config commits [pi.branch.tip = null, pi.lane.config,
// pi.lane.state] in one transaction and emits lane_created; acquiring it
// again (or after a reopen) commits and emits nothing, and the run that
// follows starts without another creation.
func TestAcquireIsHarnessLane(t *testing.T) {
	h := newHarness(t, backends[0])
	open := func() {
		cfg := h.config()
		cfg.Generation = &GenerationConfig{Configuration: defaultRun(1).Configuration, RetryPolicy: defaultRun(1).RetryPolicy}
		l, err := Open(cfg)
		require.NoError(t, err)
		h.lane = l
	}
	open()
	require.NoError(t, h.lane.Acquire())
	es, err := h.store.Entries()
	require.NoError(t, err)
	require.Empty(t, es)
	for _, a := range []struct {
		addr store.Address
		want string
	}{
		{BranchTipAddr("main"), `null`},
		{LaneConfigAddr("main"), `{"model":{"provider":"openai","modelId":"gpt-test"},"thinkingLevel":"off","activeToolNames":[]}`},
		{LaneStateAddr("main"), `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`},
	} {
		v, err := h.store.GetValue(a.addr)
		require.NoError(t, err)
		require.NotNil(t, v, a.addr.Namespace)
		require.JSONEq(t, a.want, string(v.Value), a.addr.Namespace)
	}
	seq := h.store.NextSeq()
	require.NoError(t, h.lane.Acquire())
	open()
	require.NoError(t, h.lane.Acquire())
	require.Equal(t, seq, h.store.NextSeq(), "an acquired lane commits nothing")
	h.start(1)
	require.Equal(t, []string{"lane_created", "run_start", "message_start", "message_end", "entry_added"}, h.eventTypes())
}
