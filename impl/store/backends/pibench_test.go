package backends_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// pi's storage benchmarks (pi-agent-core 0.85.1,
// harness/session/testing/benchmark/{datasets,storage}.js) on every
// backend, for profiling the query paths one at a time (`go test -bench
// PiStorage -cpuprofile`); props/bench's pi-storage family runs the same
// scenarios side by side with pi in node.

func piID(i int) string { return fmt.Sprintf("benchmark-entry-%08d", i) }

// piEntry is pi's createEntry(index, 256) as a write.
func piEntry(i int) store.Write {
	id := piID(i)
	var parent *string
	parentJSON := "null"
	if i > 0 {
		p := piID(i - 1)
		parent, parentJSON = &p, strconv.Quote(p)
	}
	prefix := id + ":"
	text := prefix + strings.Repeat("x", 256-len(prefix))
	raw := fmt.Sprintf(`{"id":%q,"parentId":%s,"type":"message","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1650000000000}}`,
		id, parentJSON, text)
	return store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)})
}

func piTx(start, n int) []store.Write {
	out := make([]store.Write, n)
	for k := range n {
		out[k] = piEntry(start + k)
	}
	return out
}

// piSeed is pi's seedStorageBenchmark: transactions of 250 entries.
func piSeed(tb testing.TB, st store.Storage, entries int) {
	for start := 0; start < entries; start += 250 {
		_, err := st.Commit(piTx(start, min(250, entries-start)))
		require.NoError(tb, err)
	}
}

func piLookups(entries int) []string {
	n := min(100, entries)
	out := make([]string, n)
	for k := range n {
		out[k] = piID(k * (entries - 1) / max(1, n-1))
	}
	return out
}

var piSizes = []int{1000, 10_000, 100_000}

// cpuNow is this process's CPU time (user + system, every thread: the GC's
// workers count), the figure that survives a shared machine's load.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times and reports its CPU ns per op beside the wall.
func loop(b *testing.B, f func()) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuNow()
	for range b.N {
		f()
	}
	b.ReportMetric(float64((cpuNow()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkPiStorageRead runs pi's read scenarios and the open on each
// backend and dataset; a dataset is seeded only when a scenario of it is
// selected (-bench matches each level of the name).
func BenchmarkPiStorageRead(b *testing.B) {
	for _, be := range backends.All() {
		b.Run(be.Name, func(b *testing.B) {
			for _, size := range piSizes {
				b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) { benchPiRead(b, be, size) })
			}
		})
	}
}

func benchPiRead(b *testing.B, be backends.Backend, size int) {
	dir := b.TempDir()
	st, err := be.Create(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
	require.NoError(b, err)
	piSeed(b, st, size)
	q := st.(store.QueryStorage)
	lookups := piLookups(size)
	limit := int64(50)
	latest := store.EntryScan{Order: store.Desc, Limit: &limit}
	branch := store.BranchScan{Start: piID(size - 1), Order: store.NewestFirst}
	b.Run("get100", func(b *testing.B) {
		loop(b, func() {
			es, err := q.GetEntries(slices.Clone(lookups)) // pi's [...dataset.lookupIds]
			if err != nil || es.Len() != len(lookups) {
				b.Fatal(err, es.Len())
			}
		})
	})
	b.Run("latest50", func(b *testing.B) {
		loop(b, func() {
			es, err := q.ScanEntries(latest)
			if err != nil || es.Len() != min(50, size) {
				b.Fatal(err, es.Len())
			}
		})
	})
	b.Run("structure", func(b *testing.B) {
		loop(b, func() {
			ss, err := q.ScanBranchStructure(branch)
			if err != nil || ss.Len() != size {
				b.Fatal(err, ss.Len())
			}
		})
	})
	require.NoError(b, st.Close())
	if be.Durable {
		b.Run("open", func(b *testing.B) {
			loop(b, func() {
				again, err := be.Open(env.Production(), dir, backends.Options{Sync: backends.SyncNever})
				require.NoError(b, err)
				require.NoError(b, again.Close())
			})
		})
	}
}

func BenchmarkPiStorageWrite(b *testing.B) {
	mixed := func() []store.Write {
		id := piID(1000)
		tip, _ := json.Marshal(id)
		return append(piTx(1000, 1),
			store.SetValueRaw(store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}, tip),
			store.InsertUsage(store.UsageRow{ID: "benchmark-usage", Raw: json.RawMessage(`{"id":"benchmark-usage","entryId":"` + id +
				`","adjustment":false,"usage":{"input":1000,"output":250,"cacheRead":500,"cacheWrite":0,"totalTokens":1250,"cost":{"input":0.001,"output":0.001,"cacheRead":0.0001,"cacheWrite":0,"total":0.0021}}}`)}))
	}
	scenarios := []struct {
		name string
		seed int
		tx   []store.Write
	}{
		{"one", 0, piTx(0, 1)},
		{"hundred", 0, piTx(0, 100)},
		{"mixed", 1000, mixed()},
	}
	for _, be := range backends.All() {
		for _, sc := range scenarios {
			b.Run(be.Name+"/"+sc.name, func(b *testing.B) {
				b.ReportAllocs()
				var cpu time.Duration
				for range b.N {
					b.StopTimer()
					st, err := be.Create(env.Production(), b.TempDir(), backends.Options{Sync: backends.SyncNever})
					require.NoError(b, err)
					piSeed(b, st, sc.seed)
					b.StartTimer()
					c0 := cpuNow()
					_, err = st.Commit(sc.tx)
					cpu += cpuNow() - c0
					b.StopTimer()
					require.NoError(b, err)
					require.NoError(b, st.Close())
					b.StartTimer()
				}
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkPiStorageFloor is what pi's read scenarios cost at the least
// in Go, beside any store: get-100's copy of the ids (pi's
// [...dataset.lookupIds]) and 100 lookups in a map of the dataset's ids
// to positions (a Go map is the index; the lookups hash and compare
// 22-byte ids), and a 50-entry result built as copies, as pointers, and
// as positions, to show what each form of result costs the collector.
func BenchmarkPiStorageFloor(b *testing.B) {
	for _, size := range piSizes {
		b.Run(fmt.Sprintf("entries=%d", size), func(b *testing.B) {
			all := make([]store.StoredEntry, size)
			index := make(map[string]int32, size)
			for i := range all {
				w := piEntry(i)
				all[i] = store.StoredEntry{Entry: *w.Entry, Seq: int64(i + 1)}
				index[w.Entry.ID] = int32(i)
			}
			lookups := piLookups(size)
			b.Run("get100", func(b *testing.B) {
				loop(b, func() {
					ids := slices.Clone(lookups)
					pos := make([]int32, 0, len(ids))
					for _, id := range ids {
						if i, ok := index[id]; ok {
							pos = append(pos, i)
						}
					}
					if len(pos) != len(lookups) {
						b.Fatal(len(pos))
					}
				})
			})
			b.Run("copies50", func(b *testing.B) {
				loop(b, func() { floorSink = slices.Clone(all[size-50:]) })
			})
			b.Run("pointers50", func(b *testing.B) {
				loop(b, func() {
					out := make([]*store.StoredEntry, 50)
					for k := range out {
						out[k] = &all[size-1-k]
					}
					floorPtrSink = out
				})
			})
			b.Run("positions50", func(b *testing.B) {
				loop(b, func() {
					out := make([]int32, 50)
					for k := range out {
						out[k] = int32(size - 1 - k)
					}
					floorPosSink = out
				})
			})
		})
	}
}

// The floor's results go to package variables, so that the compiler
// cannot drop the work that makes them.
var (
	floorSink    []store.StoredEntry
	floorPtrSink []*store.StoredEntry
	floorPosSink []int32
)
