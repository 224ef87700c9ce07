package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/stretchr/testify/require"
)

// drainRecycled closes every database the runs before left for reuse, so
// that the next sqlite run creates its own.
func drainRecycled(t *testing.T) {
	recycled.mu.Lock()
	defer recycled.mu.Unlock()
	for _, free := range recycled.free {
		for _, st := range free {
			require.NoError(t, st.Close())
		}
	}
	recycled.free = nil
}

// A sqlite run on a database an earlier run emptied (sqlite.Store.Recycle)
// is the run on a database created for it: same trace, steps, race orders
// and verdict, seed by seed, so which runs came before cannot change one.
func TestRecycledDatabaseRunsAsAFreshOne(t *testing.T) {
	for _, name := range []string{"mix", "storage-fault", "fork-migration"} {
		sc, _ := ScenarioByName(name)
		for seed := uint64(0); seed < 4; seed++ {
			drainRecycled(t)
			fresh := sc.Run(choice.NewSeeded(seed), Options{Backend: "sqlite"})
			recycled.mu.Lock()
			kept := len(recycled.free["sqlite"])
			recycled.mu.Unlock()
			require.Equal(t, 1, kept, "the fresh run's database is kept for the next")
			again := sc.Run(choice.NewSeeded(seed), Options{Backend: "sqlite"})
			require.Equal(t, fresh.TraceHash, again.TraceHash, "%s seed %d", name, seed)
			require.Equal(t, fresh.Steps, again.Steps)
			require.Equal(t, fresh.RaceOrders, again.RaceOrders)
			require.Equal(t, fresh.Failed, again.Failed)
		}
	}
}
