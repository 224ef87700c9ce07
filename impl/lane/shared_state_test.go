package lane

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// A view's copy shares its operation's state (view.clone), so the lane must
// never write a state once it is in a view: every state the lane's view
// held during a tool batch (its calls written one by one: withCall) that
// is cancelled in flight (cancelPlan) reads at the end as it did when it
// was seen. Removing the Clone either planner makes before writing fails
// this.
func TestViewStatesAreNeverWritten(t *testing.T) {
	type seen struct {
		st  *OpState
		raw string
	}
	var all []seen
	h := newToolHarness(t)
	look := func() {
		h.lane.mu.Lock()
		op := h.lane.view.op
		h.lane.mu.Unlock()
		if op != nil && op.State != nil {
			all = append(all, seen{op.State, string(MarshalState(op.State))})
		}
	}
	runs := 0
	h.tools = []Tool{{Name: "read", Run: func(args pi.JSONValue) ToolOutput {
		runs++
		look()
		if runs == 2 {
			require.NoError(t, h.lane.RequestCancel())
			look()
		}
		return ToolOutput{Content: []pi.Content{pi.TextContent{Text: "ok"}}}
	}}}
	h.open()
	h.toTools(toolRun("read"), toolScript(pi.StopToolUse, "read", "read", "read"))
	look()
	for i := 0; i < 6; i++ {
		if h.stepOK().Kind == StepSettled {
			break
		}
		look()
	}
	require.GreaterOrEqual(t, runs, 2)
	require.NotEmpty(t, all)
	for i, s := range all {
		require.Equal(t, s.raw, string(MarshalState(s.st)), "state %d", i)
	}
}
