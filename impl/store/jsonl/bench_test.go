package jsonl

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

var frame = json.RawMessage(`{"type":"text_delta","contentIndex":0,"delta":"hello world, this is a streamed delta"}`)

// benchCommits runs b.N single-append commits from `submitters` goroutines.
func benchCommits(b *testing.B, s store.Storage, submitters int) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	per := (b.N + submitters - 1) / submitters
	b.ResetTimer()
	for g := range submitters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := store.Address{Namespace: "pi.pending.assistant_frame", Key: fmt.Sprintf("op%d:r", g)}
			for range per {
				if _, err := s.Commit([]store.Write{store.AppendListRaw(addr, frame)}); err != nil {
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

func BenchmarkCommit(b *testing.B) {
	for _, sub := range []int{1, 64} {
		b.Run(fmt.Sprintf("memory/submitters=%d", sub), func(b *testing.B) {
			benchCommits(b, memory.New(env.SystemClock{}), sub)
		})
		for name, mode := range map[string]SyncMode{"always": SyncAlways, "never": SyncNever} {
			b.Run(fmt.Sprintf("jsonl-os/sync=%s/submitters=%d", name, sub), func(b *testing.B) {
				p := filepath.Join(b.TempDir(), "s.jsonl")
				s, err := Create(env.Production(), p, Header{ID: "bench", Cwd: "/"}, Options{Sync: mode})
				require.NoError(b, err)
				benchCommits(b, s, sub)
				st := s.Stats()
				if st.Syncs > 0 {
					b.ReportMetric(float64(st.Commits)/float64(st.Syncs), "commits/fsync")
				}
				require.NoError(b, s.Close())
			})
		}
	}
}

// BenchmarkOpen measures recovery time of a file with n one-write records.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "s.jsonl")
			fillFile(b, p, n)
			b.ResetTimer()
			for range b.N {
				s, err := Open(env.Production(), p, Options{Sync: SyncNever})
				require.NoError(b, err)
				_ = s.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}

// BenchmarkCompact measures compaction of a file with n records, half of
// them dead (lists appended then deleted).
func BenchmarkCompact(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "s.jsonl")
			fillFile(b, p, n)
			s, err := Open(env.Production(), p, Options{Sync: SyncAlways})
			require.NoError(b, err)
			b.ResetTimer()
			for range b.N {
				require.NoError(b, s.Compact())
			}
			require.NoError(b, s.Close())
		})
	}
}

// fillFile writes n records in commits of 100: frames appended to a list per
// response, every other list deleted, so roughly half the bytes are dead.
func fillFile(b *testing.B, p string, n int) {
	s, err := Create(env.Production(), p, Header{ID: "bench", Cwd: "/"}, Options{Sync: SyncNever})
	require.NoError(b, err)
	for i := 0; i < n; i += 100 {
		addr := store.Address{Namespace: "pi.pending.assistant_frame", Key: fmt.Sprintf("op:r%d", i)}
		ws := make([]store.Write, 0, 100)
		for range 99 {
			ws = append(ws, store.AppendListRaw(addr, frame))
		}
		ws = append(ws, store.SetValueRaw(store.Address{Namespace: "pi.op.state", Key: "op"}, json.RawMessage(`{"at":"assistant.effect_pending"}`)))
		_, err := s.Commit(ws)
		require.NoError(b, err)
		if (i/100)%2 == 1 {
			_, err := s.Commit([]store.Write{store.DeleteListRaw(addr)})
			require.NoError(b, err)
		}
	}
	require.NoError(b, s.Close())
}
