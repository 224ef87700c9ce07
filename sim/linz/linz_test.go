package linz

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/world"
)

type kvIn struct {
	Key string
	Op  string // "put" or "get"
	V   int
}

// registerModel is a per-key register; partitions by key.
var registerModel = porcupine.Model{
	Partition: PartitionBy(func(in any) string { return in.(kvIn).Key }),
	Init:      func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		in := input.(kvIn)
		if in.Op == "put" {
			return true, in.V // an indefinite put may have applied
		}
		if IsIndefinite(output) {
			return true, state // an unknown read constrains nothing
		}
		return output.(int) == state.(int), state
	},
	DescribeOperation: func(input, output any) string {
		in := input.(kvIn)
		if in.Op == "put" {
			return fmt.Sprintf("put(%s,%d)", in.Key, in.V)
		}
		return fmt.Sprintf("get(%s) -> %v", in.Key, output)
	},
}

type fakeSteps struct{ n int64 }

func (f *fakeSteps) step() int64 { return f.n }

func TestTimestampsFollowStepsAndOrderWithinAStep(t *testing.T) {
	fs := &fakeSteps{n: 3}
	r := NewRecorder(fs.step)
	a := r.Call("c1", kvIn{"x", "put", 1})
	require.NoError(t, r.Return(a, nil))
	fs.n = 5
	b := r.Call("c2", kvIn{"x", "get", 0})
	ops := r.Operations()
	require.Equal(t, []int64{3 << 16, 3<<16 + 1}, []int64{ops[0].Call, ops[0].Return})
	require.Equal(t, int64(5<<16), ops[1].Call)
	require.Equal(t, int64(math.MaxInt64), ops[1].Return, "pending at end is indefinite")
	require.Equal(t, Indefinite{Cause: "pending at end"}, ops[1].Output)
	require.Equal(t, 1, r.Pending())
	require.Equal(t, []string{"c1", "c2"}, r.Clients())
	require.Equal(t, 1, ops[1].ClientId)
	require.NoError(t, r.Return(b, 1))
	require.Error(t, r.Return(b, 1), "double return")
	require.Error(t, r.Return(OpID(9), 1), "unknown op")
	require.Equal(t, StepTime(5), int64(5<<16))
}

// A sequential history whose read misses an acknowledged write is rejected.
func TestStaleReadIsIllegal(t *testing.T) {
	fs := &fakeSteps{}
	r := NewRecorder(fs.step)
	p := r.Call("c1", kvIn{"x", "put", 7})
	fs.n++
	require.NoError(t, r.Return(p, nil))
	fs.n++
	g := r.Call("c2", kvIn{"x", "get", 0})
	fs.n++
	require.NoError(t, r.Return(g, 0))
	res, _ := r.Check(registerModel, 0)
	require.Equal(t, porcupine.Illegal, res)
}

// A write cut by a crash may or may not have applied: a later read that sees
// it, and one that does not, are both fine — but recorded as a definite
// failure the same history would be illegal.
func TestCrashCutWriteIsIndefinite(t *testing.T) {
	build := func(cut bool) *Recorder {
		fs := &fakeSteps{}
		r := NewRecorder(fs.step)
		p := r.Call("writer", kvIn{"x", "put", 5})
		fs.n++
		if cut {
			r.CutClient("writer", "crash of server@1")
		} else {
			require.NoError(t, r.Return(p, nil))
		}
		r.Fault("crash server@1", "process killed at step 1")
		fs.n++
		g1 := r.Call("reader", kvIn{"x", "get", 0})
		require.NoError(t, r.Return(g1, 0))
		fs.n++
		g2 := r.Call("reader", kvIn{"x", "get", 0})
		require.NoError(t, r.Return(g2, 5))
		return r
	}
	res, _ := build(true).Check(registerModel, 0)
	require.Equal(t, porcupine.Ok, res)
	res, _ = build(false).Check(registerModel, 0)
	require.Equal(t, porcupine.Illegal, res, "acknowledged write then a read of the old value")
	ops := build(true).Operations()
	require.Equal(t, int64(math.MaxInt64), ops[0].Return)
	require.True(t, IsIndefinite(ops[0].Output))
}

func TestPartitionByIsDeterministicAndIsolatesKeys(t *testing.T) {
	fs := &fakeSteps{}
	r := NewRecorder(fs.step)
	for i, k := range []string{"b", "a", "c", "a"} {
		fs.n++
		id := r.Call("c", kvIn{k, "put", i})
		require.NoError(t, r.Return(id, nil))
	}
	parts := registerModel.Partition(r.Operations())
	require.Len(t, parts, 3)
	require.Equal(t, "a", parts[0][0].Input.(kvIn).Key)
	require.Len(t, parts[0], 2)
	require.Equal(t, "c", parts[2][0].Input.(kvIn).Key)
	// A violation on key "b" only is still found.
	fs.n++
	g := r.Call("c", kvIn{"b", "get", 0})
	require.NoError(t, r.Return(g, 99))
	res, _ := r.Check(registerModel, time.Minute)
	require.Equal(t, porcupine.Illegal, res)
}

// kvServer runs in a world process. ackEarly is the injected bug: a put is
// acknowledged before it is applied (applied later, after a sleep).
func kvRun(t *testing.T, seed uint64, ackEarly bool) (*Recorder, porcupine.CheckResult, porcupine.LinearizationInfo) {
	t.Helper()
	w := world.New(choice.NewSeeded(seed), world.Options{})
	rec := NewRecorder(w.Step)
	store := map[string]int{}
	err := w.Run(func() {
		srv := w.NewProcess("kv")
		call := func(client string, in kvIn) {
			id := rec.Call(client, in)
			reply := srv.NewFuture("reply")
			var out int
			srv.Go("handle-"+in.Op, func() {
				w.Yield()
				if in.Op == "put" {
					if ackEarly {
						reply.Resolve(nil)
						w.Sleep(time.Millisecond)
					}
					store[in.Key] = in.V
				} else {
					out = store[in.Key]
				}
				w.Yield()
				reply.Resolve(nil)
			})
			if err := reply.Wait(); errors.Is(err, world.ErrCrashed) {
				rec.Cut(id, "crash of "+srv.String())
				return
			}
			if in.Op == "put" {
				require.NoError(t, rec.Return(id, nil))
			} else {
				require.NoError(t, rec.Return(id, out))
			}
		}
		crashed := false
		for c := range 3 {
			w.Go(fmt.Sprintf("client%d", c), func() {
				for i := range 4 {
					key := []string{"x", "y"}[w.Intn("key", 2)]
					if choice.Bool(w, "put?") {
						call(fmt.Sprintf("c%d", c), kvIn{key, "put", 10*c + i + 1})
					} else {
						call(fmt.Sprintf("c%d", c), kvIn{key, "get", 0})
					}
					if !crashed && choice.Chance(w, "crash", 1, 20) {
						crashed = true
						rec.Fault("crash "+srv.String(), fmt.Sprintf("step %d", w.Step()))
						srv = srv.Restart()
					}
				}
			})
		}
	})
	require.NoError(t, err)
	res, info := rec.Check(registerModel, time.Minute)
	return rec, res, info
}

func TestWorldHistoriesAreLinearizable(t *testing.T) {
	cut := 0
	for seed := range uint64(30) {
		rec, res, _ := kvRun(t, seed, false)
		require.Equal(t, porcupine.Ok, res, "seed %d", seed)
		for _, o := range rec.Operations() {
			if ind, ok := o.Output.(Indefinite); ok && strings.HasPrefix(ind.Cause, "crash of kv@") {
				cut++
			}
		}
	}
	require.Positive(t, cut, "no seed cut an operation with a crash")
}

// Mutation test: acknowledging a put before applying it must be caught on
// some seed, and the visualization (with the crash annotation) is written.
func TestAckBeforeApplyIsCaught(t *testing.T) {
	for seed := range uint64(200) {
		rec, res, info := kvRun(t, seed, true)
		if res != porcupine.Illegal {
			continue
		}
		path := filepath.Join(t.TempDir(), "history.html")
		rec.Fault("marker fault", "shown in the faults lane")
		require.NoError(t, rec.Visualize(registerModel, info, path))
		html, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, strings.Contains(string(html), "marker fault"), "annotation missing from the HTML")
		require.True(t, strings.Contains(string(html), FaultTag))
		return
	}
	t.Fatal("200 seeds never caught the ack-before-apply bug")
}
