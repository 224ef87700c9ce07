package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

func init() {
	Register(Family{
		Name:    "pi-storage",
		Summary: "pi's own storage benchmarks (datasets, read and write scenarios, open) on pi's MemoryStorage and JsonlStorage in node vs frameproof's backends",
		Peer:    peer.PiAgentCore,
		Run:     runPiStorage,
		Shape: func(o Options) []TableShape {
			// a row per dataset and read scenario, per dataset for the
			// open of a durable backend's file, and per write scenario
			perSize := len(piReadScenarios)
			if slices.ContainsFunc(backends.All(), func(b backends.Backend) bool { return b.Durable }) {
				perSize++
			}
			return shapesOf(len(piStorageSizes(o.Quick))*perSize+len(piWriteScenarios)*len(piWriteVariants), piStorageTable(nil, nil, o.Quick))
		},
	})
}

// piStorageSizes are pi's dataset sizes the family runs.
func piStorageSizes(quick bool) []int {
	if quick {
		return []int{1000, 10_000}
	}
	return []int{1000, 10_000, 100_000}
}

// The datasets and scenarios below are pi's (pi-agent-core 0.85.1,
// harness/session/testing/benchmark/{datasets,storage}.js), rebuilt in Go
// with the same entries, ids and transactions; the node side runs pi's own
// objects (corpus/peers/pi-agent-core/storage-bench.mjs).

func piBenchEntryID(i int) string { return fmt.Sprintf("benchmark-entry-%08d", i) }

// piBenchEntry is pi's createEntry(index, payloadBytes) as a write.
func piBenchEntry(i, payload int) store.Write {
	id := piBenchEntryID(i)
	var parent *string
	parentJSON := "null"
	if i > 0 {
		p := piBenchEntryID(i - 1)
		parent, parentJSON = &p, strconv.Quote(p)
	}
	prefix := id + ":"
	text := prefix + strings.Repeat("x", max(0, payload-len(prefix)))
	raw := fmt.Sprintf(`{"id":%q,"parentId":%s,"type":"message","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1650000000000}}`,
		id, parentJSON, text)
	return store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)})
}

func piBenchTx(start, n, payload int) []store.Write {
	out := make([]store.Write, n)
	for k := range n {
		out[k] = piBenchEntry(start+k, payload)
	}
	return out
}

// piCommitter is what a write scenario commits to: a store, or the floor.
type piCommitter interface {
	Commit(writes []store.Write) (store.CommitResult, error)
	Close() error
}

// piBenchSeed is pi's seedStorageBenchmark: transactions of 250 entries.
func piBenchSeed(st piCommitter, entries int) error {
	for start := 0; start < entries; start += 250 {
		if _, err := st.Commit(piBenchTx(start, min(250, entries-start), 256)); err != nil {
			return err
		}
	}
	return nil
}

// piBenchLookupIDs is a dataset's lookupIds.
func piBenchLookupIDs(entries int) []string {
	n := min(100, entries)
	out := make([]string, n)
	for k := range n {
		out[k] = piBenchEntryID(k * (entries - 1) / max(1, n-1))
	}
	return out
}

func piBenchMixedAppend() []store.Write {
	id := piBenchEntryID(1000)
	tip, _ := json.Marshal(id)
	return append(piBenchTx(1000, 1, 256),
		store.SetValueRaw(store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}, tip),
		store.InsertUsage(store.UsageRow{ID: "benchmark-usage", Raw: json.RawMessage(`{"id":"benchmark-usage","entryId":"` + id +
			`","adjustment":false,"usage":{"input":1000,"output":250,"cacheRead":500,"cacheWrite":0,"totalTokens":1250,"cost":{"input":0.001,"output":0.001,"cacheRead":0.0001,"cacheWrite":0,"total":0.0021}}}`)}))
}

// piFigure is one measured figure: a store, a dataset size (0 for the
// write scenarios) and a scenario.
type piFigure struct {
	Store    string  `json:"store"`
	Dataset  int     `json:"dataset"`
	Scenario string  `json:"scenario"`
	Variant  string  `json:"variant,omitempty"` // frameproof's other way to run the scenario (piRawJSON); pi's figures have none
	Ops      int     `json:"ops"`
	NsPerOp  float64 `json:"nsPerOp"`
	CPUNs    float64 `json:"cpuNsPerOp"` // process CPU (user+system, every thread) per op: what the table shows
}

type piReadScenario struct {
	name string
	run  func(q store.QueryStorage, entries int) (int, error)
}

// piGet100 is pi's first read scenario, whose floor is measured too.
const piGet100 = "get 100 distributed entries"

// piFloor names the floor's figures (pifloor.go) among the stores'.
const piFloor = "floor"

var piReadScenarios = []piReadScenario{
	{piGet100, func(q store.QueryStorage, entries int) (int, error) {
		es, err := q.GetEntries(slices.Clone(piBenchLookups[entries])) // pi's [...dataset.lookupIds]
		return es.Len(), err
	}},
	{"scan latest 50 entries", func(q store.QueryStorage, _ int) (int, error) {
		limit := int64(50)
		es, err := q.ScanEntries(store.EntryScan{Order: store.Desc, Limit: &limit})
		return es.Len(), err
	}},
	{"scan full branch structure", func(q store.QueryStorage, entries int) (int, error) {
		ss, err := q.ScanBranchStructure(store.BranchScan{Start: piBenchTips[entries], Order: store.NewestFirst})
		return ss.Len(), err
	}},
}

// piBenchLookups and piBenchTips are each dataset's lookupIds and tipId,
// made once as pi's are (each scenario builds its query per call, as pi's
// run() builds its options object).
var (
	piBenchLookups = map[int][]string{1000: piBenchLookupIDs(1000), 10_000: piBenchLookupIDs(10_000), 100_000: piBenchLookupIDs(100_000)}
	piBenchTips    = map[int]string{1000: piBenchEntryID(999), 10_000: piBenchEntryID(9999), 100_000: piBenchEntryID(99_999)}
)

func piReadWant(name string, entries int) int {
	switch name {
	case piGet100:
		return min(100, entries)
	case "scan latest 50 entries":
		return min(50, entries)
	}
	return entries
}

type piWriteScenario struct {
	name    string
	writes  int
	prepare func(piCommitter) error
	tx      func() []store.Write
}

var piWriteScenarios = []piWriteScenario{
	{"commit one message entry", 1, nil, func() []store.Write { return piBenchTx(0, 1, 256) }},
	{"commit 100 message entries", 100, nil, func() []store.Write { return piBenchTx(0, 100, 256) }},
	{"commit mixed append (synthetic linear branch: 1k entries, 256-byte payloads)", 3,
		func(st piCommitter) error { return piBenchSeed(st, 1000) }, piBenchMixedAppend},
}

func runPiStorage(ctx context.Context, opts Options) ([]Table, error) {
	dir, err := peer.Ensure(peer.PiAgentCore)
	if err != nil {
		return nil, fmt.Errorf("pi-storage: %w", err)
	}
	budget, reps := 500*time.Millisecond, 100
	if opts.Quick {
		budget, reps = 60*time.Millisecond, 5
	}
	sizes := piStorageSizes(opts.Quick)
	// node times with the same budget and reps, given here; --expose-gc:
	// it collects before each timed span, as Measure and the write loop
	// below do (runtime.GC); --quick: its datasets are sizes'
	args := []string{"--expose-gc", "storage-bench.mjs",
		"--budget-ms", strconv.FormatInt(budget.Milliseconds(), 10), "--write-reps", strconv.Itoa(reps)}
	if opts.Quick {
		args = append(args, "--quick")
	}
	pi, err := runPiStorageNode(ctx, dir, args)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "frameproof-bench-pi-storage-")
	if err != nil {
		return nil, fmt.Errorf("pi-storage: %w", err)
	}
	defer os.RemoveAll(tmp)
	var ours []piFigure
	n := 0
	for _, b := range backends.All() {
		create := func() (store.Storage, string, error) {
			d := filepath.Join(tmp, strconv.Itoa(n))
			n++
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, "", err
			}
			st, err := b.Create(env.Production(), d, backends.Options{Sync: backends.SyncNever})
			return st, d, err
		}
		figs, err := piStoreFigures(b, create, sizes, budget, reps)
		if err != nil {
			return nil, fmt.Errorf("pi-storage: %s: %w", b.Name, err)
		}
		ours = append(ours, figs...)
	}
	floor, err := piFloorFigures(sizes, budget, reps)
	if err != nil {
		return nil, fmt.Errorf("pi-storage: floor: %w", err)
	}
	return []Table{piStorageTable(pi, append(ours, floor...), opts.Quick)}, nil
}

// piStoreFigures runs pi's read scenarios and the open on each dataset,
// and the write scenarios both ways, on backend b's stores from create.
func piStoreFigures(b backends.Backend, create func() (store.Storage, string, error), sizes []int, budget time.Duration, reps int) ([]piFigure, error) {
	var out []piFigure
	for _, size := range sizes {
		st, d, err := create()
		if err != nil {
			return nil, err
		}
		if err := piBenchSeed(st, size); err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
		q := st.(store.QueryStorage)
		for _, sc := range piReadScenarios {
			want := piReadWant(sc.name, size)
			s, err := Measure(budget, func() error {
				got, err := sc.run(q, size)
				if err == nil && got != want {
					err = fmt.Errorf("%s: got %d, want %d", sc.name, got, want)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
			out = append(out, piFigure{Store: b.Name, Dataset: size, Scenario: sc.name, Ops: s.Ops, NsPerOp: s.WallNs, CPUNs: s.CPUNs})
		}
		if err := st.Close(); err != nil {
			return nil, err
		}
		if b.Durable {
			s, err := Measure(budget, func() error {
				again, err := b.Open(env.Production(), d, backends.Options{Sync: backends.SyncNever})
				if err != nil {
					return err
				}
				return again.Close()
			})
			if err != nil {
				return nil, fmt.Errorf("open: %w", err)
			}
			out = append(out, piFigure{Store: b.Name, Dataset: size, Scenario: "open", Ops: s.Ops, NsPerOp: s.WallNs, CPUNs: s.CPUNs})
		}
	}
	runtime.GC() // the datasets read above are not the commits' garbage (node collects here too)
	fresh := func() (store.Storage, error) {
		st, _, err := create()
		return st, err
	}
	for _, sc := range piWriteScenarios {
		for _, variant := range piWriteVariants {
			f, err := timeStoreWrite(sc, variant, reps, fresh)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", sc.name, err)
			}
			f.Store = b.Name
			out = append(out, f)
		}
	}
	return out, nil
}

// piFloorFigures measures the floor (pifloor.go) under get-100 on each
// dataset and under each write scenario, as the stores are measured.
func piFloorFigures(sizes []int, budget time.Duration, reps int) ([]piFigure, error) {
	var out []piFigure
	for _, size := range sizes {
		index, want := piFloorIndex(size), piReadWant(piGet100, size)
		s, err := Measure(budget, func() error {
			got, err := piFloorGet(index, piBenchLookups[size])
			if err == nil && got != want {
				err = fmt.Errorf("floor get: got %d, want %d", got, want)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, piFigure{Store: piFloor, Dataset: size, Scenario: piGet100, Ops: s.Ops, NsPerOp: s.WallNs, CPUNs: s.CPUNs})
	}
	runtime.GC()
	create := func() (*piFloorStore, error) { return newPiFloorStore(), nil }
	commit := func(f *piFloorStore, raw []store.Write) (store.CommitResult, error) { return f.Commit(raw) }
	for _, sc := range piWriteScenarios {
		f, err := timePiWrite(sc, reps, create, commit)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		f.Store = piFloor
		out = append(out, f)
	}
	return out, nil
}

// piWriteGroup is how many fresh stores a write scenario commits to
// between two clock reads: a CPU time reading costs about a µs, as much
// as the cheapest commit, and is read once per group rather than once per
// commit (storage-bench.mjs groups the same way). Small, so that the
// stores of a group do not pile up garbage for the commits to collect.
const piWriteGroup = 10

// The ways frameproof runs a write scenario. pi's transactions are module
// constants, JS objects made once and committed to every fresh store,
// which pi's commit spreads and never parses: its counterpart is a
// store.Tx, prepared once (rows checked as JSON and owned) and committed
// to each store, the ratio's figure. piRawJSON rows are frameproof's
// Commit of writes as raw JSON, checked at each commit: work pi's commit
// has no counterpart of, shown beside it.
const piRawJSON = "raw JSON"

var piWriteVariants = []string{"", piRawJSON}

// timeStoreWrite times sc on fresh stores from create, committed as
// variant says.
func timeStoreWrite(sc piWriteScenario, variant string, reps int, create func() (store.Storage, error)) (piFigure, error) {
	tx, err := store.NewTx(sc.tx()) // once, as pi's transactions are made once
	if err != nil {
		return piFigure{}, err
	}
	commit := func(st store.Storage, _ []store.Write) (store.CommitResult, error) { return store.CommitTx(st, tx) }
	if variant == piRawJSON {
		commit = func(st store.Storage, raw []store.Write) (store.CommitResult, error) { return st.Commit(raw) }
	}
	f, err := timePiWrite(sc, reps, create, commit)
	f.Variant = variant
	return f, err
}

// timePiWrite times reps groups of piWriteGroup commits of sc's
// transaction (commit is given the store and the transaction's writes,
// made for it), each on a fresh store after sc's prepare; only the
// commits are inside the clock reads. A first group is not timed, as
// Measure's first op is not: it warms caches here, and node's compiler
// there. The figure is the interquartile mean of the groups (see
// interquartileMean). storage-bench.mjs times pi's the same way.
func timePiWrite[S piCommitter](sc piWriteScenario, reps int, create func() (S, error), commit func(S, []store.Write) (store.CommitResult, error)) (piFigure, error) {
	var walls, cpus []time.Duration
	stores := make([]S, piWriteGroup)
	txs := make([][]store.Write, piWriteGroup)
	for rep := range reps + 1 {
		for k := range stores {
			st, err := create()
			if err != nil {
				return piFigure{}, err
			}
			if sc.prepare != nil {
				if err := sc.prepare(st); err != nil {
					return piFigure{}, err
				}
			}
			stores[k], txs[k] = st, sc.tx()
		}
		cpu0 := cpuTime()
		start := time.Now()
		for k, st := range stores {
			res, err := commit(st, txs[k])
			if err != nil || len(res.Seqs) != sc.writes {
				return piFigure{}, fmt.Errorf("%v (%d writes)", err, len(res.Seqs))
			}
		}
		if rep > 0 {
			walls = append(walls, time.Since(start))
			cpus = append(cpus, cpuTime()-cpu0)
		}
		for _, st := range stores {
			if err := st.Close(); err != nil {
				return piFigure{}, err
			}
		}
	}
	return piFigure{Scenario: sc.name, Ops: reps * piWriteGroup,
		NsPerOp: interquartileMean(walls) / piWriteGroup, CPUNs: interquartileMean(cpus) / piWriteGroup}, nil
}

// interquartileMean is the mean of the middle half of xs (in ns): a
// group's few µs of commits can take a collection of garbage the prepare
// made (the seeded branch) or an earlier phase left, on either side, which
// the mean would charge to the commits; the middle half also averages the
// µs resolution of a CPU-time reading, which a median would not.
func interquartileMean(xs []time.Duration) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	mid := s[len(s)/4 : len(s)-len(s)/4]
	var sum time.Duration
	for _, x := range mid {
		sum += x
	}
	return float64(sum.Nanoseconds()) / float64(len(mid))
}

func runPiStorageNode(ctx context.Context, dir string, args []string) ([]piFigure, error) {
	cmd := procgroup.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	stderr := procgroup.NewTail(2000)
	cmd.Stderr = stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("pi-storage: node storage-bench.mjs: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var figs []piFigure
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var f piFigure
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return nil, fmt.Errorf("pi-storage: node printed %q", sc.Text())
		}
		figs = append(figs, f)
	}
	return figs, nil
}

func piStorageTable(pi, ours []piFigure, quick bool) Table {
	// a row is a dataset, a scenario and frameproof's variant of it; pi's
	// cells are its figures for the scenario
	type row struct {
		dataset           int
		scenario, variant string
	}
	type key struct {
		store string
		row   row
	}
	at := map[key]float64{}
	var order []row
	seen := map[row]bool{}
	for _, f := range pi {
		at[key{"pi-" + f.Store, row{f.Dataset, f.Scenario, ""}}] = f.CPUNs
	}
	for _, f := range ours {
		r := row{f.Dataset, f.Scenario, f.Variant}
		at[key{f.Store, r}] = f.CPUNs
		if !seen[r] {
			seen[r] = true
			order = append(order, r)
		}
	}
	cell := func(k key) string {
		if v, ok := at[k]; ok {
			return formatNs(v)
		}
		return "—"
	}
	ratio := func(a, b key) string {
		x, ok1 := at[a]
		y, ok2 := at[b]
		if !ok1 || !ok2 {
			return "—"
		}
		return Ratio(x, y)
	}
	t := Table{
		Title:  "pi's storage benchmarks: pi's MemoryStorage and JsonlStorage (node) vs frameproof (Go), CPU time per operation",
		Header: []string{"scenario", "entries", "pi memory", "frameproof memory", "memory ×", "pi JSONL", "frameproof JSONL", "JSONL ×", "frameproof SQLite", "Go floor"},
		Notes: []string{
			"pi's datasets and scenarios (pi-agent-core 0.85.1 harness/session/testing/benchmark): reads are timed loops on a seeded store; " +
				"each write scenario is one commit on a fresh store (after the scenario's prepare), timed in groups of ten such commits after one untimed group; the figure is the mean of the middle half of the groups (a collection of the prepare's garbage lands in a few groups, on either side); open reopens the seeded file. " +
				"No side fsyncs (pi's JsonlStorage never does; frameproof's JSONL and SQLite run with sync never). " +
				"Both sides do the same work per operation: transactions are built once, outside the timing (pi's are module constants, JS objects its commit spreads and never parses; frameproof's a store.Tx, prepared once: rows checked as JSON and owned), and committed to each store; a row \"from raw JSON\" is frameproof's Commit of the writes as raw JSON, checked at every commit, work pi's commit has no counterpart of; a read builds its query per call, as pi's run() builds its options object, and copies the lookup ids, as pi's does. " +
				"Times are CPU time (user + system, every thread of the process: Go's GC workers, V8's helpers; getrusage / process.cpuUsage), because this machine is shared and load inflates wall time; " +
				"Clocks are read once per batch of reads and once per group of ten commits, not per operation: a reading costs tens of ns (wall) to about a µs (CPU), as much as the cheapest operations. " +
				"Each side runs a full collection (Go runtime.GC, node --expose-gc's gc()) before each read loop and before a store's write scenarios, so that collector threads clearing the datasets read before are not counted as a commit's CPU. " +
				"× is pi's time / frameproof's (above 1× means frameproof is faster). " +
				"Go floor is the least work any Go store does for the scenario, with nothing of a store around it (props/bench/pifloor.go: get-100's copy of the ids and a Go map lookup each; a commit's ids in a map, parents looked up, rows appended, values put, seqs returned; no lock, clock, JSON, stats, tree or file): pi's time over it is the most any Go store's ratio could be. " +
				"Command: `frameproof bench --family pi-storage`" + map[bool]string{true: " --quick", false: ""}[quick] + ".",
		},
	}
	for _, r := range order {
		entries, label := strconv.Itoa(r.dataset), r.scenario
		if r.dataset == 0 {
			entries = "—"
		}
		if r.variant != "" {
			label += " (frameproof from " + r.variant + ")"
		}
		piRow := row{r.dataset, r.scenario, ""}
		t.Rows = append(t.Rows, []string{label, entries,
			cell(key{"pi-memory", piRow}), cell(key{"memory", r}), ratio(key{"pi-memory", piRow}, key{"memory", r}),
			cell(key{"pi-jsonl", piRow}), cell(key{"jsonl", r}), ratio(key{"pi-jsonl", piRow}, key{"jsonl", r}),
			cell(key{"sqlite", r}), cell(key{piFloor, r}),
		})
	}
	return t
}

func formatNs(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f ms", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f µs", v/1e3)
	}
	return fmt.Sprintf("%.0f ns", v)
}
