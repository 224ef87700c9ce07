package sqlite_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

// BenchmarkCommit measures commits/s of a 2-write commit (a frame append
// and a value set) with sync always and never, from 1 and 64 concurrent
// submitters. SQLite serializes writers, so unlike the JSONL backend there
// is no group commit: 64 submitters wait their turn.
func BenchmarkCommit(b *testing.B) {
	for _, sync := range []sqlite.SyncMode{sqlite.SyncAlways, sqlite.SyncNever} {
		for _, submitters := range []int{1, 64} {
			b.Run(fmt.Sprintf("sync=%s/submitters=%d", sync, submitters), func(b *testing.B) {
				benchCommit(b, sync, submitters)
			})
		}
	}
}

func benchCommit(b *testing.B, mode sqlite.SyncMode, submitters int) {
	db, err := sqlite.Open(filepath.Join(b.TempDir(), "b.db"), env.SystemClock{}, sqlite.Options{Sync: mode})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	frames := store.Address{Namespace: "pi.pending.assistant_frame", Key: "op:r"}
	tip := store.Address{Namespace: "pi.branch.tip", Key: "main"}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := (b.N + submitters - 1) / submitters
	for s := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				v := json.RawMessage(`{"type":"text_delta","n":` + strconv.Itoa(s*per+i) + `}`)
				if _, err := db.Commit([]store.Write{store.AppendListRaw(frames, v), store.SetValueRaw(tip, v)}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(per*submitters)/b.Elapsed().Seconds(), "commits/s")
}
