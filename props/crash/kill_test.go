package crash

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/choice"
)

// The kill test re-executes this test binary as a child (TestMain sees
// FRAMEPROOF_KILL_CHILD) that commits generated transactions in a loop and
// reports each outcome on a pipe (fd 3) right after Commit returns. The
// parent SIGKILLs it at random moments, reopens the store itself and checks
// that the state is a commit prefix holding every reported ack.

const killEnv = "FRAMEPROOF_KILL_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(killEnv) != "" {
		if err := killChild(); err != nil {
			fmt.Fprintln(os.Stderr, "kill child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// syncAlways: an acknowledged commit must survive SIGKILL.
var syncAlways = backends.Options{Sync: backends.SyncAlways, Session: "kill"}

// openBackend reopens the durable store the parent created in dir.
func openBackend(backend, dir string) (store.Storage, error) {
	b, err := backends.ByName(backend)
	if err != nil {
		return nil, err
	}
	return b.Open(env.Production(), dir, syncAlways)
}

// killChild commits generator indices start, start+1, … until killed.
func killChild() error {
	backend, dir := os.Getenv("KILL_BACKEND"), os.Getenv("KILL_DIR")
	seed, err := strconv.ParseUint(os.Getenv("KILL_SEED"), 10, 64)
	if err != nil {
		return err
	}
	start, err := strconv.Atoi(os.Getenv("KILL_START"))
	if err != nil {
		return err
	}
	acks := os.NewFile(3, "acks")
	st, err := openBackend(backend, dir)
	if err != nil {
		return err
	}
	gen := NewGen(seed)
	for range start {
		gen.Commit()
	}
	for i := start; i < start+100000; i++ {
		res, err := st.Commit(ToStore(gen.Commit()))
		switch {
		case err == nil:
			_, err = fmt.Fprintf(acks, "ack %d %d\n", i, res.FirstSeq)
		case IsRejection(err):
			_, err = fmt.Fprintf(acks, "rej %d %s\n", i, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type ack struct {
	index    int
	rejected string
	firstSeq int64
}

// spawnAndKill runs one child from generator index start, kills it after a
// random number of acks plus a random delay, and returns what it reported.
func spawnAndKill(t *testing.T, backend, dir string, seed uint64, start int, r *choice.Seeded) []ack {
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killEnv+"=1", "KILL_BACKEND="+backend, "KILL_DIR="+dir,
		"KILL_SEED="+strconv.FormatUint(seed, 10), "KILL_START="+strconv.Itoa(start))
	cmd.ExtraFiles = []*os.File{pw}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	pw.Close()

	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var got []ack
	parse := func(line string) {
		f := strings.SplitN(line, " ", 3)
		i, _ := strconv.Atoi(f[1])
		a := ack{index: i}
		if f[0] == "rej" {
			a.rejected = f[2]
		} else {
			a.firstSeq, _ = strconv.ParseInt(f[2], 10, 64)
		}
		got = append(got, a)
	}
	wantAcks := r.Intn("acks before kill", 12)
	deadline := time.After(20 * time.Second)
wait:
	for len(got) < wantAcks {
		select {
		case line, ok := <-lines:
			if !ok {
				break wait
			}
			parse(line)
		case <-deadline:
			break wait
		}
	}
	time.Sleep(time.Duration(r.Intn("kill delay us", 2000)) * time.Microsecond)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err = cmd.Wait()
	for line := range lines {
		parse(line)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child did not die by SIGKILL (%v); stderr:\n%s", err, stderr.String())
	}
	return got
}

func killTest(t *testing.T, b backends.Backend) {
	kills := budget(t, 50, 10)
	if s := os.Getenv("KILLS"); s != "" {
		kills, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	// Kill timing is real-time and so not reproducible; the workload is:
	// KILL_SEED reruns one. The child regenerates it from the same seed.
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("KILL_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	t.Logf("workload seed %d (rerun with KILL_SEED=%d)", seed, seed)
	// The parent creates the store so that every child only reopens it.
	opts := syncAlways
	opts.Cwd = dir
	st, err := b.Create(env.Production(), dir, opts)
	require.NoError(t, err)
	require.NoError(t, st.Close())
	r := choice.NewSeeded(seed*1000 + 99)
	gen := NewGen(seed)
	var all [][]mstore.Write // generator output by index
	commit := func(i int) []mstore.Write {
		for len(all) <= i {
			all = append(all, gen.Commit())
		}
		return all[i]
	}
	var durable [][]mstore.Write // commits known to be in the store
	start, totalAcks, landed := 0, 0, 0
	for kill := range kills {
		got := spawnAndKill(t, b.Name, dir, seed, start, r)
		oracle := NewOracle()
		for _, ws := range durable {
			oracle.Assume(ws)
		}
		next := start
		for _, a := range got {
			require.Equal(t, next, a.index, "acks arrive in order")
			ws := commit(a.index)
			if a.rejected != "" {
				require.NoError(t, oracle.Rejected(ws, fmt.Errorf("%s", a.rejected)), "kill %d", kill)
			} else {
				require.NoError(t, oracle.Acked(ws, store.CommitResult{FirstSeq: a.firstSeq, Seqs: seqsFrom(a.firstSeq, len(ws))}), "kill %d", kill)
				totalAcks++
			}
			next++
		}
		inflight := commit(next)
		oracle.Indefinite(inflight)

		st, err := b.Open(env.Production(), dir, syncAlways)
		require.NoError(t, err, "kill %d: reopen", kill)
		snap, err := ReadSnapshot(st)
		require.NoError(t, err)
		require.NoError(t, st.Close())
		k, err := oracle.Check(snap)
		require.NoError(t, err, "kill %d (seed %d, child started at %d, %d reports)", kill, seed, start, len(got))
		for _, a := range got {
			if a.rejected == "" {
				durable = append(durable, commit(a.index))
			}
		}
		if k > oracle.Acknowledged() {
			durable = append(durable, inflight)
			landed++
		}
		start = next + 1 // the in-flight commit is never retried
	}
	t.Logf("%s: %d SIGKILLs, %d acknowledged commits all recovered, %d unacknowledged in-flight commits landed, 0 violations",
		b.Name, kills, totalAcks, landed)
	require.Positive(t, totalAcks)
}

func seqsFrom(first int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = first + int64(i)
	}
	return out
}

// TestKill runs on every durable backend of the registry.
func TestKill(t *testing.T) {
	for _, b := range backends.All() {
		if b.Durable {
			t.Run(b.Name, func(t *testing.T) { killTest(t, b) })
		}
	}
}
