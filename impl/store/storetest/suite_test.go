package storetest_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/storetest"
)

// recordingTB is a rapid.TB that records failure instead of failing the test.
type recordingTB struct {
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recordingTB) Helper()                   {}
func (r *recordingTB) Name() string              { return "mutant" }
func (r *recordingTB) Logf(f string, a ...any)   { r.log(fmt.Sprintf(f, a...)) }
func (r *recordingTB) Log(a ...any)              { r.log(fmt.Sprint(a...)) }
func (r *recordingTB) Skipf(f string, a ...any)  { runtime.Goexit() }
func (r *recordingTB) Skip(...any)               { runtime.Goexit() }
func (r *recordingTB) SkipNow()                  { runtime.Goexit() }
func (r *recordingTB) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *recordingTB) Error(a ...any)            { r.fail(fmt.Sprint(a...)) }
func (r *recordingTB) Fatalf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (r *recordingTB) Fatal(a ...any)            { r.fail(fmt.Sprint(a...)); runtime.Goexit() }
func (r *recordingTB) FailNow()                  { r.fail("FailNow"); runtime.Goexit() }
func (r *recordingTB) Fail()                     { r.fail("Fail") }
func (r *recordingTB) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recordingTB) log(s string)              { r.mu.Lock(); r.msgs = append(r.msgs, s); r.mu.Unlock() }
func (r *recordingTB) fail(s string) {
	r.mu.Lock()
	r.failed = true
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
}

// mutant wraps the memory backend with one deliberate bug.
type mutant struct {
	*memory.Store
	bug string
}

func (m *mutant) Commit(ws []store.Write) (store.CommitResult, error) {
	if m.bug == "list delete ignored" {
		kept := ws[:0:0]
		for _, w := range ws {
			if !(w.Kind == store.WriteList && w.Op == store.OpDelete) {
				kept = append(kept, w)
			}
		}
		if len(kept) != len(ws) {
			kept = append(kept, store.SetValueRaw(store.Address{Namespace: "pad", Key: fmt.Sprint(len(ws))}, json.RawMessage("0")))
		}
		ws = kept
	}
	if m.bug == "missing parent accepted" {
		for i, w := range ws {
			if w.Kind == store.WriteEntry && w.Entry.ParentID != nil {
				e := *w.Entry
				e.ParentID = nil
				e.Raw = json.RawMessage(`{"id":"` + e.ID + `","parentId":null}`)
				ws[i] = store.InsertEntry(e)
			}
		}
	}
	return m.Store.Commit(ws)
}

// CommitTx is Commit of the Tx's writes: the promoted memory.Store's
// CommitTx would bypass the bug.
func (m *mutant) CommitTx(tx *store.Tx) (store.CommitResult, error) {
	return m.Commit(tx.Writes())
}

func (m *mutant) ScanValues(ns, p string) ([]store.StoredValue, error) {
	v, err := m.Store.ScanValues(ns, p)
	if m.bug == "scan unordered" && len(v) > 1 {
		v[0], v[len(v)-1] = v[len(v)-1], v[0]
	}
	return v, err
}

func (m *mutant) ReadList(a store.Address, o store.ReadOptions) ([]store.ListElement, error) {
	if m.bug == "cursor inclusive" && o.Cursor != nil {
		c := *o.Cursor + 1
		if o.Order == store.Desc {
			c = *o.Cursor - 1
		}
		o.Cursor = &c
	}
	if m.bug == "cursor keeps its element" && o.Cursor != nil {
		c := *o.Cursor - 1
		if o.Order == store.Desc {
			c = *o.Cursor + 1
		}
		o.Cursor = &c
	}
	return m.Store.ReadList(a, o)
}

func TestSuiteRejectsBrokenBackends(t *testing.T) {
	t.Chdir(t.TempDir()) // rapid writes fail files relative to the working directory
	for _, bug := range []string{"list delete ignored", "missing parent accepted", "scan unordered", "cursor inclusive", "cursor keeps its element"} {
		tb := &recordingTB{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			storetest.Check(tb, t, func(*testing.T) store.Storage {
				return &mutant{Store: memory.New(env.SystemClock{}), bug: bug}
			}, nil)
		}()
		<-done
		assert.True(t, tb.Failed(), "suite accepted a backend with bug %q", bug)
		if len(tb.msgs) > 0 {
			// Found by the deterministic cases, not by a lucky draw.
			assert.Regexp(t, `^(paging|readList .* after cursor|scan order|parent)`, tb.msgs[0], bug)
		}
	}
}

// Review of ef7f0c2: the suite now commits half its transactions by
// store.CommitTx, but mutant embeds *memory.Store, whose CommitTx is
// promoted past mutant's Commit: a Tx commit reaches the correct memory
// backend, so the mutants checked by TestSuiteRejectsBrokenBackends are
// broken for only half of the suite's commits.
func TestMutantBugAppliesToCommitTx(t *testing.T) {
	writes := func() []store.Write { // mutant's Commit rewrites its argument
		p := "nope"
		return []store.Write{store.InsertEntry(store.Entry{ID: "e", ParentID: &p, Raw: json.RawMessage(`{"id":"e","parentId":"nope"}`)})}
	}
	viaCommit := &mutant{Store: memory.New(env.SystemClock{}), bug: "missing parent accepted"}
	_, errCommit := viaCommit.Commit(writes())
	viaTx := &mutant{Store: memory.New(env.SystemClock{}), bug: "missing parent accepted"}
	tx, err := store.NewTx(writes())
	require.NoError(t, err)
	_, errTx := store.CommitTx(viaTx, tx)
	assert.NoError(t, errCommit, "the mutant accepts a missing parent")
	assert.NoError(t, errTx, "the same mutant, committed a Tx, refuses it: its bug is bypassed")
}
