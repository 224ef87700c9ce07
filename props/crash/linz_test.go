package crash

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/choice"
)

// StoreModel is model/store's per-address specification as a porcupine
// model, partitioned by address (value, list, rows).
func StoreModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			parts := map[string][]porcupine.Operation{}
			for _, op := range history {
				for _, p := range mstore.Project(op.Input.(mstore.Input), op.Output.(mstore.Output)) {
					parts[p.Key] = append(parts[p.Key], porcupine.Operation{
						ClientId: op.ClientId, Input: p.In, Output: p.Out, Call: op.Call, Return: op.Return,
					})
				}
			}
			keys := make([]string, 0, len(parts))
			for k := range parts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out := make([][]porcupine.Operation, len(keys))
			for i, k := range keys {
				out[i] = parts[k]
			}
			return out
		},
		Init: func() any { return mstore.PartInit() },
		Step: func(state, input, output any) (bool, any) {
			return mstore.PartStep(state.(mstore.PartState), input.(mstore.Input), output.(mstore.Output))
		},
		Equal: func(a, b any) bool { return mstore.PartEqual(a.(mstore.PartState), b.(mstore.PartState)) },
		DescribeOperation: func(input, output any) string {
			return mstore.DescribeHist(input.(mstore.Input), output.(mstore.Output))
		},
		DescribeState: func(state any) string { return mstore.DescribePart(state.(mstore.PartState)) },
	}
}

// recorder collects a concurrent history with a logical clock.
type recorder struct {
	clock atomic.Int64
	mu    sync.Mutex
	ops   []porcupine.Operation
}

func (r *recorder) call() int64 { return r.clock.Add(1) }

func (r *recorder) done(client int, call int64, in mstore.Input, out mstore.Output) {
	ret := r.clock.Add(1)
	if out.Unknown {
		ret = math.MaxInt64 // may take effect at any point after its call
	}
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
	r.mu.Unlock()
}

func commitOp(st store.Storage, ws []mstore.Write) mstore.Output {
	res, err := st.Commit(ToStore(ws))
	switch {
	case err == nil:
		return mstore.Output{Seqs: append([]int64{}, res.Seqs...)}
	case IsRejection(err):
		return mstore.Output{Err: err.Error()}
	default:
		return mstore.Output{Unknown: true}
	}
}

func readValueOp(st store.Storage, a mstore.Addr) (mstore.Output, error) {
	v, err := st.GetValue(store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindValue})
	if err != nil || v == nil {
		return mstore.Output{}, err
	}
	return mstore.Output{Found: true, Value: mstore.Stored{Value: string(v.Value), Seq: v.Seq}}, nil
}

func readListOp(st store.Storage, a mstore.Addr) (mstore.Output, error) {
	els, err := st.ReadList(store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindList}, store.ReadOptions{Limit: 10000})
	if err != nil {
		return mstore.Output{}, err
	}
	out := mstore.Output{}
	for _, e := range els {
		out.Elems = append(out.Elems, mstore.Stored{Value: string(e.Value), Seq: e.Seq})
	}
	return out, nil
}

func readRowsOp(st store.Storage) (mstore.Output, error) {
	snap, err := ReadSnapshot(st)
	if err != nil {
		return mstore.Output{}, err
	}
	var rows []mstore.RowRef
	for _, e := range snap.Entries {
		rows = append(rows, mstore.RowRef{Kind: mstore.Entry, ID: e.ID, Seq: e.Seq})
	}
	for _, u := range snap.Usage {
		rows = append(rows, mstore.RowRef{Kind: mstore.Usage, ID: u.ID, Seq: u.Seq})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Seq < rows[j].Seq })
	return mstore.Output{Rows: rows}, nil
}

func allAddrs() []mstore.Addr {
	var out []mstore.Addr
	for _, ns := range Namespaces {
		for _, k := range Keys {
			out = append(out, mstore.Addr{Namespace: ns, Key: k})
		}
	}
	return out
}

// concurrentHistory runs 3 epochs of 3 concurrent submitters on one JSONL
// file over faults.FS, crashing inside each epoch, and returns the history
// (ending with sequential reads of everything).
func concurrentHistory(t *testing.T, seed uint64, lie bool) []porcupine.Operation {
	fsys := faults.NewFS(choice.NewSeeded(seed))
	fsys.SetSyncLies(lie)
	require.NoError(t, fsys.MkdirAll("/data"))
	st, err := jsonl.Create(sweepEnv(fsys), dataPath, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{})
	require.NoError(t, err)
	rec := &recorder{}
	pick := choice.NewSeeded(seed*1000 + 11)
	addrs := allAddrs()
	for epoch := range 3 {
		fsys.CrashAfter(4 + pick.Intn("crash point", 16))
		// Once a commit's outcome is open the process is as good as dead:
		// clients stop submitting, so only the commits in flight at that
		// moment are indefinite (as after a real crash).
		var dead atomic.Bool
		var wg sync.WaitGroup
		for c := range 3 {
			gen := NewTaggedGen(seed*31+uint64(epoch*7+c), fmt.Sprintf("c%d.%d.", epoch, c))
			r := choice.NewSeeded(seed*1000 + uint64(epoch*10+c))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 6 {
					if dead.Load() {
						return
					}
					call := rec.call()
					if r.Intn("write", 3) > 0 {
						in := mstore.Input{Kind: mstore.HistCommit, Writes: gen.Commit()}
						out := commitOp(st, in.Writes)
						if out.Unknown {
							dead.Store(true)
						}
						rec.done(c, call, in, out)
						continue
					}
					a := choice.Pick(r, "addr", addrs)
					var in mstore.Input
					var out mstore.Output
					var err error
					if r.Intn("op", 2) == 0 {
						in = mstore.Input{Kind: mstore.HistReadValue, Addr: a}
						out, err = readValueOp(st, a)
					} else {
						in = mstore.Input{Kind: mstore.HistReadList, Addr: a}
						out, err = readListOp(st, a)
					}
					if err == nil {
						rec.done(c, call, in, out)
					}
				}
			}()
		}
		wg.Wait()
		_ = st.Close()
		fsys.Crash()
		st, err = jsonl.Open(sweepEnv(fsys), dataPath, jsonl.Options{RepairHoledTail: true})
		if err != nil {
			// An honest disk always keeps the synced header; a lying one
			// may lose it, and the lost acks show up in the history.
			require.True(t, lie, "reopen after crash: %v", err)
			if ok, _ := fsys.Exists(dataPath); ok {
				require.NoError(t, fsys.Remove(dataPath))
			}
			st, err = jsonl.Create(sweepEnv(fsys), dataPath, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, jsonl.Options{})
			require.NoError(t, err)
		}
	}
	defer st.Close()
	for _, a := range addrs {
		call := rec.call()
		out, err := readValueOp(st, a)
		require.NoError(t, err)
		rec.done(0, call, mstore.Input{Kind: mstore.HistReadValue, Addr: a}, out)
		call = rec.call()
		out, err = readListOp(st, a)
		require.NoError(t, err)
		rec.done(0, call, mstore.Input{Kind: mstore.HistReadList, Addr: a}, out)
	}
	call := rec.call()
	out, err := readRowsOp(st)
	require.NoError(t, err)
	rec.done(0, call, mstore.Input{Kind: mstore.HistReadRows}, out)
	return rec.ops
}

func checkHistory(t *testing.T, ops []porcupine.Operation) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	res, info := porcupine.CheckOperationsVerbose(StoreModel(), ops, 20*time.Second)
	require.NotEqual(t, porcupine.Unknown, res, "porcupine timed out: inconclusive")
	return res, info
}

// TestLinearizableAcrossCrashes: concurrent submitters on the JSONL backend
// with crashes inside every epoch; the whole history (acked commits,
// rejections, indefinite commits, reads before and after recovery) must be
// linearizable against model/store.
func TestLinearizableAcrossCrashes(t *testing.T) {
	n := budget(t, 60, 12)
	ops, indefinite, rejected, overlapping := 0, 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		h := concurrentHistory(t, seed, false)
		ops += len(h)
		for i, op := range h {
			out := op.Output.(mstore.Output)
			if out.Unknown {
				indefinite++
			}
			if out.Err != "" {
				rejected++
			}
			for _, o := range h[:i] {
				if o.ClientId != op.ClientId && o.Call < op.Return && op.Call < o.Return {
					overlapping++
					break
				}
			}
		}
		res, info := checkHistory(t, h)
		if res != porcupine.Ok {
			path := filepath.Join(t.TempDir(), fmt.Sprintf("history-%d.html", seed))
			if f, err := os.Create(path); err == nil {
				_ = porcupine.Visualize(StoreModel(), info, f)
				_ = f.Close()
			}
			t.Fatalf("seed %d: history not linearizable (visualization: %s)", seed, path)
		}
	}
	t.Logf("%d concurrent histories, %d operations (%d indefinite, %d rejected, %d overlapping another client's), all linearizable",
		n, ops, indefinite, rejected, overlapping)
	assert.Positive(t, indefinite, "no crash interrupted a commit")
	assert.Positive(t, overlapping, "no concurrency happened")
}

// TestLinearizabilityCatchesSyncLies is the mutation test: with an fsync
// that acknowledges without syncing, acknowledged commits vanish at the
// crash and porcupine must reject the history.
func TestLinearizabilityCatchesSyncLies(t *testing.T) {
	caught := 0
	n := 20
	for seed := uint64(1); seed <= uint64(n); seed++ {
		res, _ := checkHistory(t, concurrentHistory(t, seed, true))
		if res == porcupine.Illegal {
			caught++
		}
	}
	t.Logf("sync-lies caught by porcupine in %d of %d histories", caught, n)
	assert.Greater(t, caught, n/2)
}

// TestStoreModelRejectsLostAck pins the smallest violation: an acked set
// followed by a read that does not see it.
func TestStoreModelRejectsLostAck(t *testing.T) {
	a := mstore.Addr{Namespace: "a", Key: "k"}
	set := mstore.Input{Kind: mstore.HistCommit, Writes: []mstore.Write{{Kind: mstore.Value, Op: mstore.Set, Addr: a, Value: `1`}}}
	read := mstore.Input{Kind: mstore.HistReadValue, Addr: a}
	ok := []porcupine.Operation{
		{Input: set, Output: mstore.Output{Seqs: []int64{1}}, Call: 0, Return: 1},
		{Input: read, Output: mstore.Output{Found: true, Value: mstore.Stored{Value: `1`, Seq: 1}}, Call: 2, Return: 3},
	}
	assert.True(t, porcupine.CheckOperations(StoreModel(), ok))
	lost := []porcupine.Operation{ok[0], {Input: read, Output: mstore.Output{}, Call: 2, Return: 3}}
	assert.False(t, porcupine.CheckOperations(StoreModel(), lost))
	indefinite := []porcupine.Operation{
		{Input: set, Output: mstore.Output{Unknown: true}, Call: 0, Return: math.MaxInt64},
		{Input: read, Output: mstore.Output{}, Call: 2, Return: 3},
		{Input: read, Output: mstore.Output{Found: true, Value: mstore.Stored{Value: `1`, Seq: 1}}, Call: 4, Return: 5},
	}
	assert.True(t, porcupine.CheckOperations(StoreModel(), indefinite), "an indefinite commit may land late")
	flicker := append(indefinite[:2:2], indefinite[2], porcupine.Operation{Input: read, Output: mstore.Output{}, Call: 6, Return: 7})
	assert.False(t, porcupine.CheckOperations(StoreModel(), flicker), "but not disappear again")
}
