package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

func init() {
	Register(Family{
		Name:    "store",
		Summary: "store commits/s per backend and sync mode at 1 and 64 submitters, beside a raw write+fsync loop of the same bytes",
		Run:     runStore,
		Shape: func(Options) []TableShape {
			return shapesOf(len(storeSubmitters)*len(storeCases()), storeTable())
		},
	})
}

// storeFrame is the one write of every benchmark commit: a streamed text
// delta appended to a response's frame list, the store's hottest commit.
var storeFrame = json.RawMessage(`{"type":"text_delta","contentIndex":0,"delta":"hello world, this is a streamed delta"}`)

// storeCase is one row: how to open the store in dir.
type storeCase struct {
	backend, sync string
	durable       bool // sync=always: compared with the raw write+fsync ceiling
	open          func(dir string) (store.Storage, error)
}

// storeCases are the rows, from the backend registry: a store in memory
// once, a durable one with fsync on every commit and without.
func storeCases() []storeCase {
	var out []storeCase
	for _, b := range backends.All() {
		create := func(sync backends.Sync) func(string) (store.Storage, error) {
			return func(dir string) (store.Storage, error) {
				return b.Create(env.Production(), dir, backends.Options{Sync: sync, Session: "bench"})
			}
		}
		if !b.Durable {
			out = append(out, storeCase{backend: b.Name, sync: "—", open: create(backends.SyncAlways)})
			continue
		}
		out = append(out,
			storeCase{backend: b.Name, sync: "always", durable: true, open: create(backends.SyncAlways)},
			storeCase{backend: b.Name, sync: "never", open: create(backends.SyncNever)})
	}
	return out
}

// fsyncCount is a store's fsync count where it keeps one (the JSONL
// store's Stats); ok is false elsewhere.
func fsyncCount(s store.Storage) (int, bool) {
	if j, ok := s.(*jsonl.Store); ok {
		return j.Stats().Syncs, true
	}
	return 0, false
}

// storeSubmitters are the submitter counts each case runs at.
var storeSubmitters = []int{1, 64}

// storeTable is the family's table before its rows: one per submitter
// count and case.
func storeTable() Table {
	return Table{
		Title:  "Store: commits per second (one frame append per commit)",
		Header: []string{"store", "sync", "submitters", "commits/s", "ceiling: write+fsync/s", "store/ceiling", "commits/fsync"},
	}
}

// runStore measures commits/s of one-append commits per backend, sync mode
// and submitter count, and the disk's ceiling: a loop that appends the
// bytes of one JSONL commit record and fsyncs, on the same file system.
func runStore(ctx context.Context, o Options) ([]Table, error) {
	dir, err := os.MkdirTemp("", "frameproof-bench-store-")
	if err != nil {
		return nil, fmt.Errorf("store: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)

	recordBytes, err := jsonlRecordBytes(dir)
	if err != nil {
		return nil, err
	}
	t := storeTable()
	for _, sub := range storeSubmitters {
		for i, c := range storeCases() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			caseDir := filepath.Join(dir, fmt.Sprintf("%d-%d", sub, i))
			if err := os.Mkdir(caseDir, 0o755); err != nil {
				return nil, fmt.Errorf("store: %w", err)
			}
			rate, perSync, err := storeRun(c, caseDir, sub, o.Budget())
			if err != nil {
				return nil, fmt.Errorf("store %s sync=%s submitters=%d: %w", c.backend, c.sync, sub, err)
			}
			row := []string{c.backend, c.sync, fmt.Sprint(sub), Num(rate), "—", "—", perSync}
			if c.durable {
				// Measured right after the row it bounds, so both see the
				// same disk and the same neighbours on a shared machine.
				ceiling, err := writeFsyncLoop(filepath.Join(caseDir, "ceiling"), recordBytes, o.Budget())
				if err != nil {
					return nil, err
				}
				row[4], row[5] = Num(ceiling), Ratio(rate, ceiling)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Ceiling: one writer appending %d bytes (one JSONL commit record) and fsyncing, in a loop, in the same directory (under %s), measured right after its row; above 1.0× means group commit (several commits per fsync). SQLite writes WAL pages, more bytes than the ceiling's, and exposes no fsync count (n/a).", recordBytes, os.TempDir()),
		"Printed by `go run ./cmd/frameproof bench --family store`.",
	}
	return []Table{t}, nil
}

// storeRun runs one-append commits from sub goroutines for budget and
// returns commits/s and commits per fsync ("n/a" where not observable).
func storeRun(c storeCase, dir string, sub int, budget time.Duration) (float64, string, error) {
	s, err := c.open(dir)
	if err != nil {
		return 0, "", err
	}
	var (
		commits  atomic.Int64
		stop     atomic.Bool
		firstErr error
		once     sync.Once
		wg       sync.WaitGroup
	)
	start := time.Now()
	for g := range sub {
		wg.Add(1)
		go func() {
			defer wg.Done()
			addr := store.Address{Namespace: "pi.pending.assistant_frame", Key: fmt.Sprintf("op%d:r", g)}
			for !stop.Load() {
				if _, err := s.Commit([]store.Write{store.AppendListRaw(addr, storeFrame)}); err != nil {
					once.Do(func() { firstErr = err })
					stop.Store(true)
					return
				}
				commits.Add(1)
			}
		}()
	}
	time.Sleep(budget)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	perSync := "n/a"
	if n, ok := fsyncCount(s); ok && n > 0 {
		perSync = fmt.Sprintf("%.1f", float64(commits.Load())/float64(n))
	}
	if err := s.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return 0, "", firstErr
	}
	return float64(commits.Load()) / elapsed.Seconds(), perSync, nil
}

// jsonlRecordBytes is the size of one benchmark commit in the JSONL file.
func jsonlRecordBytes(dir string) (int, error) {
	p := filepath.Join(dir, "probe.jsonl")
	s, err := jsonl.Create(env.Production(), p, jsonl.Header{ID: "bench", Cwd: "/"}, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		return 0, fmt.Errorf("store: probe: %w", err)
	}
	size := func() (int64, error) {
		fi, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		return fi.Size(), nil
	}
	before, err := size()
	if err != nil {
		return 0, fmt.Errorf("store: probe: %w", err)
	}
	const n = 100
	addr := store.Address{Namespace: "pi.pending.assistant_frame", Key: "op0:r"}
	for range n {
		if _, err := s.Commit([]store.Write{store.AppendListRaw(addr, storeFrame)}); err != nil {
			return 0, fmt.Errorf("store: probe: %w", err)
		}
	}
	if err := s.Close(); err != nil {
		return 0, fmt.Errorf("store: probe: %w", err)
	}
	after, err := size()
	if err != nil {
		return 0, fmt.Errorf("store: probe: %w", err)
	}
	if after <= before {
		return 0, fmt.Errorf("store: probe: the JSONL file did not grow")
	}
	return int((after - before) / n), nil
}

// writeFsyncLoop appends size bytes and fsyncs, for budget; it returns
// write+fsync pairs per second. Every error is returned: a ceiling that
// was not measured must not print.
func writeFsyncLoop(path string, size int, budget time.Duration) (float64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("store: ceiling: %w", err)
	}
	rec := make([]byte, size)
	for i := range rec {
		rec[i] = 'x'
	}
	rec[size-1] = '\n'
	n := 0
	start := time.Now()
	for n == 0 || time.Since(start) < budget {
		if _, err := f.Write(rec); err != nil {
			f.Close()
			return 0, fmt.Errorf("store: ceiling: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return 0, fmt.Errorf("store: ceiling: %w", err)
		}
		n++
	}
	elapsed := time.Since(start)
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("store: ceiling: %w", err)
	}
	return float64(n) / elapsed.Seconds(), nil
}
