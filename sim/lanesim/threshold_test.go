package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// runtime/drive/checkpoint.ts runCheckpoint with structural.ts
// prepareCompactionThreshold: swarm seeds that draw a model registry
// compact at both kinds of boundary, and some threshold reads find the run
// cancelled (the aimed canceller) or finalized (the aimed finalizer), and
// some boundaries find a cancel committed after their read (the canceller
// aimed after the read: checkpoint.ts runCheckpoint's planning
// continueOperation declines);
// every run passes the lockstep, which compares each boundary
// transaction (the preparation under the minted task, the op state's
// threshold task) with the model's.
func TestSwarmReachesThresholdCompaction(t *testing.T) {
	reached := searchSwarm(t, 400, rowThreshold, func(r map[string]int) bool {
		return r["compacted:checkpoint"] >= 3 && r["compacted:finish"] >= 3 && r[orderThresholdCancelled] >= 2 && r[orderThresholdLost] >= 1 &&
			r[orderBoundaryCancelled+":finish"] >= 1
	})
	t.Logf("threshold compaction reached: %v", reached)
	require.GreaterOrEqual(t, reached["compacted:checkpoint"], 3, "%v", reached)
	require.GreaterOrEqual(t, reached["compacted:finish"], 3, "%v", reached)
	require.GreaterOrEqual(t, reached[orderThresholdCancelled], 2, "%v", reached)
	require.GreaterOrEqual(t, reached[orderThresholdLost], 1, "%v", reached)
	require.GreaterOrEqual(t, reached[orderBoundaryCancelled+":finish"], 1, "%v", reached)
}
