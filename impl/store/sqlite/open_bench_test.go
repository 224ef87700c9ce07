package sqlite_test

import (
	"fmt"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

// BenchmarkOpenInMemory measures creating and closing one InMemory store,
// the simulator's per-run cost for the sqlite backend.
func BenchmarkOpenInMemory(b *testing.B) {
	opts := sqlite.Options{Sync: sqlite.SyncNever, InMemory: true}
	for i := 0; i < b.N; i++ {
		st, err := sqlite.Open(fmt.Sprintf("bench-open-%d.db", i), env.SystemClock{}, opts)
		if err != nil {
			b.Fatal(err)
		}
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
