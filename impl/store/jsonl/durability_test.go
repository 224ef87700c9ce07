package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
)

// durableHas reports whether the fsynced content holds the record with seq.
func durableHas(m *memFS, seq int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.synced[path]
	s := `"seq":` + strconv.FormatInt(seq, 10)
	return bytes.Contains(b, []byte(s+",")) || bytes.Contains(b, []byte(s+"}"))
}

// groupCommitRun parks the first commit inside fsync, queues n more commits
// behind it, releases the fsync and checks that (a) the queued commits shared
// one write and one fsync and (b) every commit was durable when acknowledged.
func groupCommitRun(t *testing.T, opts Options, n int) (Stats, []string) {
	m := newMemFS()
	s := newStore(t, m, opts)
	gate := env.Goroutines{}.NewFuture("gate")
	m.mu.Lock()
	m.gateSync = gate
	m.mu.Unlock()

	var mu sync.Mutex
	var violations []string
	var wg sync.WaitGroup
	commit := func(i int) {
		defer wg.Done()
		res, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "n", Key: strconv.Itoa(i)}, []byte("1"))})
		if err != nil {
			t.Error(err)
			return
		}
		if !durableHas(m, res.Seqs[0]) {
			mu.Lock()
			violations = append(violations, fmt.Sprintf("commit %d (seq %d) acknowledged before fsync", i, res.Seqs[0]))
			mu.Unlock()
		}
	}
	wg.Add(1)
	go commit(0)
	// The leader has taken its batch once it is parked inside fsync, so every
	// commit submitted from now on queues behind it.
	waitFor(t, func() bool { return m.parkedSyncs() == 1 })
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go commit(i)
	}
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.queue) == n })
	gate.Resolve(nil)
	wg.Wait()
	return s.Stats(), violations
}

func waitFor(t *testing.T, cond func() bool) {
	for range 1_000_000 {
		if cond() {
			return
		}
		env.SystemClock{}.Sleep(10_000) // 10µs
	}
	t.Fatal("condition never became true")
}

func TestGroupCommitBatchesAndAcksOnlyDurableCommits(t *testing.T) {
	stats, violations := groupCommitRun(t, Options{Sync: SyncAlways}, 20)
	assert.Empty(t, violations)
	assert.Equal(t, 21, stats.Commits)
	assert.Equal(t, 2, stats.Writes, "the 20 queued commits share one write")
	assert.Equal(t, 2, stats.Syncs, "and one fsync")
}

// TestDurabilityCheckCatchesEarlyAcks is the mutation test for the check
// above: without fsync, commits are acknowledged before their bytes are
// durable, and the check must say so.
func TestDurabilityCheckCatchesEarlyAcks(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{Sync: SyncNever})
	res, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "n", Key: "k"}, []byte("1"))})
	require.NoError(t, err)
	assert.False(t, durableHas(m, res.Seqs[0]), "SyncNever acks unsynced bytes and the check notices")
}

func TestGroupCommitRejectsInvalidCommitsIndividually(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{Sync: SyncAlways})
	gate := env.Goroutines{}.NewFuture("gate")
	m.mu.Lock()
	m.gateSync = gate
	m.mu.Unlock()
	type out struct {
		res store.CommitResult
		err error
	}
	results := make([]chan out, 4)
	submit := func(i int, w []store.Write) {
		results[i] = make(chan out, 1)
		go func() { r, err := s.Commit(w); results[i] <- out{r, err} }()
	}
	submit(0, []store.Write{entryW("root", "")})
	waitFor(t, func() bool { return m.parkedSyncs() == 1 }) // the leader's batch is taken
	submit(1, []store.Write{entryW("a", "root")})
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.queue) == 1 })
	submit(2, []store.Write{entryW("a", "root")}) // duplicate of a commit in the same batch
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.queue) == 2 })
	submit(3, []store.Write{entryW("b", "a")}) // parent from an earlier commit of the batch
	waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return len(s.queue) == 3 })
	gate.Resolve(nil)
	o := []out{<-results[0], <-results[1], <-results[2], <-results[3]}
	require.NoError(t, o[0].err)
	require.NoError(t, o[1].err)
	require.EqualError(t, o[2].err, "Duplicate entry or usage id: a")
	require.NoError(t, o[3].err)
	assert.Equal(t, []int64{1}, o[0].res.Seqs)
	assert.Equal(t, []int64{2}, o[1].res.Seqs)
	assert.Equal(t, []int64{3}, o[3].res.Seqs, "a rejected commit consumes no seq")
	r, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	ents, _ := r.Entries()
	assert.Len(t, ents, 3)
}

// fillForCompaction commits a history with overwritten values, a deleted
// list, a live list and entries/usage, and returns the expected survivors.
func fillForCompaction(t *testing.T, s *Store) {
	a := store.MustValue[string]("pi.op.state", "op1")
	live := store.MustList[string]("pi.pending.assistant_frame", "op2:r")
	for i := range 5 {
		_, err := s.Commit([]store.Write{set(t, a, fmt.Sprint("state", i)), app(t, fmt.Sprint("f", i))})
		require.NoError(t, err)
	}
	_, err := s.Commit([]store.Write{entryW("e1", ""), usageW("u1", "e1"), store.DeleteList(frames)})
	require.NoError(t, err)
	w, _ := store.AppendList(live, "keep")
	_, err = s.Commit([]store.Write{w, store.DeleteValue(store.MustValue[int]("x", "absent"))})
	require.NoError(t, err)
}

type snapshot struct {
	Values  []store.StoredValue
	Lists   []store.ListElement
	Entries []store.StoredEntry
	Usage   []store.StoredUsage
	Next    int64
}

func snap(t *testing.T, s *Store) snapshot {
	var out snapshot
	for _, ns := range []string{"pi.op.state", "x"} {
		v, err := s.ScanValues(ns, "")
		require.NoError(t, err)
		out.Values = append(out.Values, v...)
	}
	for _, l := range []store.Address{frames.Address, store.MustList[string]("pi.pending.assistant_frame", "op2:r").Address} {
		els, err := s.ReadList(l, store.ReadOptions{})
		require.NoError(t, err)
		out.Lists = append(out.Lists, els...)
	}
	out.Entries, _ = s.Entries()
	out.Usage, _ = s.Usage()
	out.Next = s.NextSeq()
	return out
}

func TestCompactKeepsSurvivorsWithOriginalSeqs(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{})
	fillForCompaction(t, s)
	before := snap(t, s)
	dead, total := s.DeadBytes()
	require.Greater(t, dead, total/2)
	require.NoError(t, s.Compact())
	want := `{"v":4,"kind":"header","id":"sess","storageVersion":1,"createdAt":1000,"cwd":"/w","nextSeq":16}` + "\n" +
		`{"kind":"value","op":"set","seq":9,"namespace":"pi.op.state","key":"op1","value":"state4"}` + "\n" +
		`{"kind":"entry","type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"<hi>"},"seq":11,"timestamp":` +
		strconv.FormatInt(before.Entries[0].Timestamp, 10) + "}\n" +
		`{"kind":"usage","id":"u1","usage":{"input":1,"cost":{"total":0}},"entryId":"e1","adjustment":false,"seq":12}` + "\n" +
		`{"kind":"list","op":"append","seq":14,"namespace":"pi.pending.assistant_frame","key":"op2:r","value":"keep"}` + "\n"
	if d := cmp.Diff(want, string(m.content(path))); d != "" {
		t.Fatalf("compacted file (-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, snap(t, s)); d != "" {
		t.Fatalf("state changed by compaction:\n%s", d)
	}
	// Writes continue on the new file, and nextSeq survives trailing deletions.
	res, err := s.Commit([]store.Write{store.DeleteValue(store.MustValue[int]("x", "y"))})
	require.NoError(t, err)
	assert.Equal(t, int64(16), res.FirstSeq)
	r, err := Open(testEnv(m), path, Options{})
	require.NoError(t, err)
	after := snap(t, r)
	before.Next = 17
	if d := cmp.Diff(before, after); d != "" {
		t.Fatalf("reopened state:\n%s", d)
	}
}

func TestCompactionTriggers(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{CompactDeadRatio: 0.5})
	fillForCompaction(t, s)
	assert.GreaterOrEqual(t, s.Stats().Compactions, 1, "a deleting commit crossed the ratio")
	dead, total := s.DeadBytes()
	assert.Less(t, float64(dead)/float64(total), 0.5)

	m2 := newMemFS()
	s2 := newStore(t, m2, Options{})
	fillForCompaction(t, s2)
	assert.Zero(t, s2.Stats().Compactions, "0 = off")
	require.NoError(t, s2.Close())
	r, err := Open(testEnv(m2), path, Options{CompactDeadRatio: 0.5})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Stats().Compactions, "compacted on open")
}

// TestCompactionCrashLeavesOldOrNewFile fails every mutating FS operation of
// a compaction in turn (a failing write stores half its bytes); afterwards
// the file is byte-identical to the old or the new one, and reopening gives
// the same state either way.
func TestCompactionCrashLeavesOldOrNewFile(t *testing.T) {
	ref := newMemFS()
	rs := newStore(t, ref, Options{})
	fillForCompaction(t, rs)
	want := snap(t, rs)
	oldBytes := string(ref.content(path))
	require.NoError(t, rs.Compact())
	newBytes := string(ref.content(path))
	steps := 0
	for k := 1; ; k++ {
		m := newMemFS()
		s := newStore(t, m, Options{})
		fillForCompaction(t, s)
		m.mu.Lock()
		base := m.ops
		m.failAt = base + k
		m.mu.Unlock()
		err := s.Compact()
		m.mu.Lock()
		m.failAt = 0
		ran := m.ops - base
		m.mu.Unlock()
		got := string(m.content(path))
		assert.True(t, got == oldBytes || got == newBytes, "fail at op %d: file is neither old nor new", k)
		r, oerr := Open(testEnv(m), path, Options{})
		require.NoError(t, oerr, "fail at op %d", k)
		after := snap(t, r)
		if d := cmp.Diff(want, after); d != "" {
			t.Fatalf("fail at op %d: state differs:\n%s", k, d)
		}
		if err == nil {
			require.Less(t, ran, k, "op %d was never reached, so compaction must have succeeded", k)
			break
		}
		steps++
	}
	assert.GreaterOrEqual(t, steps, 5, "create, write, sync, rename, syncdir each failed once")
}

// abandoningExec is an executor whose waits fail, as a simulator's do for
// actors of a crashed process.
type abandoningExec struct{ env.Goroutines }

var errAbandoned = errors.New("actor abandoned")

func (abandoningExec) NewFuture(name string) env.Completer {
	return abandonedFuture{env.Goroutines{}.NewFuture(name)}
}

type abandonedFuture struct{ env.Completer }

func (abandonedFuture) Wait() error { return errAbandoned }

// abandonedFollowerSetup opens a store whose waits fail and parks a leader
// commit inside fsync; release lets it finish and returns its error.
func abandonedFollowerSetup(t *testing.T) (s *Store, release func() error) {
	m := newMemFS()
	e := testEnv(m)
	e.Executor = abandoningExec{}
	s, err := Create(e, path, Header{ID: "sess", CreatedAt: 1000, Cwd: "/w"}, Options{Sync: SyncAlways})
	require.NoError(t, err)
	gate := env.Goroutines{}.NewFuture("gate")
	m.mu.Lock()
	m.gateSync = gate
	m.mu.Unlock()
	leaderDone := make(chan error, 1)
	go func() {
		_, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "n", Key: "leader"}, []byte("1"))})
		leaderDone <- err
	}()
	waitFor(t, func() bool { return m.parkedSyncs() == 1 })
	return s, func() error { gate.Resolve(nil); return <-leaderDone }
}

// TestFollowerWhoseWaitFailsDoesNotReadAsCommitted: a follower whose wait
// for the leader fails must report an error, never a zero result with a
// nil error (which a caller would take as an acknowledged commit).
func TestFollowerWhoseWaitFailsDoesNotReadAsCommitted(t *testing.T) {
	s, release := abandonedFollowerSetup(t)
	_, err := s.Commit([]store.Write{store.SetValueRaw(store.Address{Namespace: "n", Key: "follower"}, []byte("1"))})
	require.ErrorIs(t, err, errAbandoned)
	require.NoError(t, release())
}

// TestCloseWhoseWaitFailsReportsIt: Close returns nil only when the store was
// already closed; a failed wait for the leader leaves the close unfinished
// and must say so.
func TestCloseWhoseWaitFailsReportsIt(t *testing.T) {
	s, release := abandonedFollowerSetup(t)
	require.ErrorIs(t, s.Close(), errAbandoned)
	require.NoError(t, release())
	require.NoError(t, s.Close(), "closing a closed store is a no-op")
}
