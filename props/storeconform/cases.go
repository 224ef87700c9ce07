package storeconform

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/storetest"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/props/crash"
)

// Options size a run.
type Options struct {
	// Checks is the number of state machine runs per state machine case
	// (0: 20). Each run starts a fresh server.
	Checks int
	// Steps is the mean number of actions per state machine run (0:
	// rapid's default, 30).
	Steps int
	// Seed seeds the state machine (rapid) and the kill workloads; the same
	// seed against the same server draws the same cases.
	Seed uint64
	// KillCommits is the number of commits in each kill case (0: 12); the
	// server is killed once per commit.
	KillCommits int
	// ShrinkTime bounds the shrinking of a failing state machine (0: 10 s).
	ShrinkTime time.Duration
	// TempDir holds each case's directory ("": the system's).
	TempDir string
	// Only names the cases to run (nil: all).
	Only []string
}

func (o Options) withDefaults() Options {
	if o.Checks <= 0 {
		o.Checks = 20
	}
	if o.Steps <= 0 {
		o.Steps = 30
	}
	if o.KillCommits <= 0 {
		o.KillCommits = 12
	}
	if o.ShrinkTime <= 0 {
		o.ShrinkTime = 10 * time.Second
	}
	return o
}

// Verdict statuses.
const (
	Pass    = "pass"
	Fail    = "fail"
	Skipped = "skipped"
)

// Verdict is one case's outcome.
type Verdict struct {
	Name     string
	Status   string
	Detail   string
	Duration time.Duration
}

// Case is one case of the suite.
type Case struct {
	Name string
	// Durable: the case kills or reopens the server, so it runs only
	// against a server whose hello says it is durable.
	Durable bool
	// Faults: the case arms storage faults, so it runs only against a
	// server whose hello offers some (serve store --faults).
	Faults bool
	// What the case checks, for help and reports.
	About string
	run   func(c *caseRun)
}

// Cases is the suite, in run order.
func Cases() []Case {
	return []Case{
		{Name: "paging", About: "storetest: every list page size in both orders, every cursor, a list deleted then appended to", run: paging},
		{Name: "scan order and missing parent", About: "storetest: scanValues in code point key order; pi's Missing parent entry", run: scanAndParent},
		{Name: "state machine", About: "storetest: random commits of all six write kinds (pi's rule breaks included) checked read by read against the suite's reference", run: machine(false)},
		{Name: "refused writes apply nothing", About: "a commit holding a write at an address pi's value()/list() refuse, or of an unknown kind, is refused with pi's message and applies none of its writes", run: refused},
		{Name: "state machine with reopen", Durable: true, About: "the state machine with an extra action: end the server and start another on the same directory", run: machine(true)},
		{Name: "kill after every commit", Durable: true, About: "SIGKILL after each acknowledged commit; the restarted server holds every acknowledged commit and nothing else", run: killAfter},
		{Name: "kill during a commit", Durable: true, About: "SIGKILL with a commit in flight; the restarted server holds every acknowledged commit and the in-flight one whole or not at all", run: killDuring},
		{Name: "storage faults", Durable: true, Faults: true, About: "for each fault the server offers (a failed, a short write, a failed sync): the faulted commit is refused and shows nothing; later commits are refused or hold as if it never was; the restarted server opens with every acknowledged commit and the faulted one whole or not at all", run: storageFaults},
	}
}

// caseRun is one case's context.
type caseRun struct {
	ctx     context.Context
	hello   Hello // the first server's
	subject Subject
	opts    Options
	tb      *recorder
	dirs    []string
	open    []*Remote
}

// dial starts the subject on a fresh directory.
func (c *caseRun) dial() *Remote {
	dir, err := os.MkdirTemp(c.opts.TempDir, "frameproof-conform-store-")
	if err != nil {
		c.tb.Fatalf("temporary directory: %v", err)
	}
	c.dirs = append(c.dirs, dir)
	r, err := Dial(c.ctx, c.subject, dir)
	if err != nil {
		c.tb.Fatalf("start the server: %v", err)
	}
	c.open = append(c.open, r)
	return r
}

func (c *caseRun) cleanup() {
	for _, r := range c.open {
		r.kill()
	}
	for _, d := range c.dirs {
		_ = os.RemoveAll(d)
	}
}

// Run runs every case against the subject, calling each (if not nil) as
// each verdict is reached. hello is the first server's hello; err is a
// server that could not be started at all (no verdicts then).
func Run(ctx context.Context, s Subject, o Options, each func(Verdict)) (hello Hello, verdicts []Verdict, err error) {
	o = o.withDefaults()
	dir, err := os.MkdirTemp(o.TempDir, "frameproof-conform-store-")
	if err != nil {
		return Hello{}, nil, err
	}
	probe, err := Dial(ctx, s, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return Hello{}, nil, err
	}
	hello = probe.Hello()
	cerr := probe.Close()
	_ = os.RemoveAll(dir)
	if cerr != nil {
		return hello, nil, fmt.Errorf("storeconform: the server at the end of its input: %w", cerr)
	}
	for _, cs := range Cases() {
		if o.Only != nil && !slices.Contains(o.Only, cs.Name) {
			continue
		}
		v := Verdict{Name: cs.Name}
		began := time.Now()
		switch {
		case ctx.Err() != nil:
			v.Status, v.Detail = Skipped, "not run: interrupted"
		case cs.Durable && !hello.Durable:
			v.Status, v.Detail = Skipped, "not durable: the server's hello says a new process does not reopen its store"
		case cs.Faults && len(hello.Faults) == 0:
			v.Status, v.Detail = Skipped, "no faults: the server's hello offers no \"fault\" op (frameproof serve store --faults does)"
		default:
			c := &caseRun{ctx: ctx, hello: hello, subject: s, opts: o, tb: &recorder{name: "conform-store/" + cs.Name}}
			runRecorded(c.tb, func() { cs.run(c) })
			c.cleanup()
			v.Status = Pass
			if c.tb.Failed() {
				v.Status, v.Detail = Fail, c.tb.detail(60)
			}
		}
		v.Duration = time.Since(began)
		verdicts = append(verdicts, v)
		if each != nil {
			each(v)
		}
	}
	return hello, verdicts, nil
}

func paging(c *caseRun) {
	r := c.dial()
	storetest.CheckPaging(c.tb, r)
	c.transport(r)
}

func scanAndParent(c *caseRun) {
	r := c.dial()
	storetest.CheckScanAndParent(c.tb, r)
	c.transport(r)
}

// transport fails the case on a failure NextSeq swallowed.
func (c *caseRun) transport(r *Remote) {
	if err := r.Err(); err != nil {
		c.tb.Fatalf("%v", err)
	}
}

func machine(reopen bool) func(c *caseRun) {
	return func(c *caseRun) {
		open := func(*testing.T) store.Storage { return c.dial() }
		var re storetest.Reopen
		if reopen {
			re = func(_ *testing.T, s store.Storage) store.Storage {
				r := s.(*Remote)
				if err := r.Reopen(); err != nil {
					c.tb.Fatalf("reopen: %v", err)
				}
				return r
			}
		}
		withRapid(c.opts.Checks, c.opts.Steps, c.opts.Seed+1, c.opts.ShrinkTime, func() {
			storetest.CheckMachine(c.tb, nil, open, re, storetest.MachineOptions{ValidShapesOnly: true})
		})
		for _, r := range c.open {
			if err := r.Err(); err != nil {
				c.tb.Fatalf("%v", err)
			}
		}
	}
}

// pi's address errors (values.ts validateAddress).
const (
	errEmptyNamespace = "Value namespace must not be empty"
	errNamespaceNUL   = `Value namespace must not contain \u0000`
	errKeyNUL         = `Value key must not contain \u0000`
)

// refused: each commit puts a valid write first and a refused one second;
// the store must refuse the commit (with pi's message where pi has one)
// and keep none of it, and a durable store must still open.
func refused(c *caseRun) {
	r := c.dial()
	type bad struct {
		what, want string
		w          store.Write
	}
	bads := []bad{
		{"set at an empty namespace", errEmptyNamespace, store.SetValueRaw(store.Address{Namespace: "", Key: "k"}, json.RawMessage(`1`))},
		{"append at an empty namespace", errEmptyNamespace, store.AppendListRaw(store.Address{Namespace: "", Key: "k"}, json.RawMessage(`1`))},
		{"set at a namespace holding NUL", errNamespaceNUL, store.SetValueRaw(store.Address{Namespace: "a\x00b", Key: "c"}, json.RawMessage(`1`))},
		{"append at a key holding NUL", errKeyNUL, store.AppendListRaw(store.Address{Namespace: "a", Key: "b\x00c"}, json.RawMessage(`1`))},
		{"a write of the unknown kind register", "", store.Write{Kind: "register", Namespace: "a", Key: "k", Value: json.RawMessage(`1`)}},
	}
	var fails []string
	for i, b := range bads {
		probe := store.Address{Namespace: "probe", Key: fmt.Sprint(i), Kind: store.KindValue}
		next := r.NextSeq()
		_, err := r.Commit([]store.Write{store.SetValueRaw(probe, json.RawMessage(`true`)), b.w})
		switch {
		case isTransport(err):
			c.tb.Fatalf("%s: %v", b.what, err)
		case err == nil:
			fails = append(fails, fmt.Sprintf("%s: the commit was acknowledged", b.what))
		case b.want != "" && !strings.Contains(err.Error(), b.want):
			fails = append(fails, fmt.Sprintf("%s: refused with %q, want pi's %q", b.what, err, b.want))
		}
		if err == nil {
			continue
		}
		got, gerr := r.GetValue(probe)
		if gerr != nil {
			c.tb.Fatalf("%s: getValue: %v", b.what, gerr)
		}
		if n := r.NextSeq(); n != next || got != nil {
			fails = append(fails, fmt.Sprintf("%s: refused (%q) but not all-or-none: next seq %d → %d, the commit's first write %s", b.what, err, next, n, present(got)))
		}
	}
	if r.Hello().Durable {
		if err := r.Reopen(); err != nil {
			fails = append(fails, fmt.Sprintf("the store does not reopen after the refused commits: %v", err))
		}
	}
	c.transport(r)
	if len(fails) > 0 {
		c.tb.Fatalf("%s", strings.Join(fails, "\n"))
	}
}

func present(v *store.StoredValue) string {
	if v == nil {
		return "is absent"
	}
	return fmt.Sprintf("landed (seq %d)", v.Seq)
}

// workload is the kill cases' commits: props/crash's generator (all six
// write kinds, about one commit in ten breaking a commit rule).
func (c *caseRun) workload(tag uint64) [][]mstore.Write {
	return crash.NewGen(c.opts.Seed*7919 + tag).Workload(c.opts.KillCommits)
}

// check reads the whole store and compares it with the oracle's allowed
// states, returning the index of the one it holds.
func (c *caseRun) check(r *Remote, o *crash.Oracle, where string) int {
	got, err := crash.ReadSnapshot(r)
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		c.tb.Fatalf("%s: reading the store: %v", where, err)
	}
	k, err := o.Check(got)
	if err != nil {
		c.tb.Fatalf("%s: %v", where, err)
	}
	return k
}

func killAfter(c *caseRun) {
	r := c.dial()
	o := crash.NewOracle()
	for i, ws := range c.workload(1) {
		res, err := r.Commit(crash.ToStore(ws))
		switch {
		case isTransport(err):
			c.tb.Fatalf("commit %d: %v", i+1, err)
		case err != nil:
			if rerr := o.Rejected(ws, err); rerr != nil {
				c.tb.Fatalf("commit %d: %v", i+1, rerr)
			}
		default:
			if aerr := o.Acked(ws, res); aerr != nil {
				c.tb.Fatalf("commit %d: %v", i+1, aerr)
			}
		}
		if err := r.Kill(); err != nil {
			c.tb.Fatalf("restart after the kill following commit %d: %v", i+1, err)
		}
		c.check(r, o, fmt.Sprintf("after SIGKILL following commit %d", i+1))
	}
}

// killDuring sends each commit and kills the server without waiting for
// the answer, after a delay drawn from the seed (none, or up to 3 ms), so
// some commits land and some do not.
func killDuring(c *caseRun) {
	r := c.dial()
	rng := rand.New(rand.NewPCG(c.opts.Seed, 2))
	var landed [][]mstore.Write
	for i, ws := range c.workload(2) {
		o := crash.NewOracle()
		for _, l := range landed {
			o.Assume(l)
		}
		o.Indefinite(ws)
		if err := r.p.send("commit", commitBody(crash.ToStore(ws))); err != nil {
			c.tb.Fatalf("commit %d: send: %v", i+1, err)
		}
		if d := rng.IntN(4); d > 0 {
			time.Sleep(time.Duration(d) * time.Millisecond)
		}
		if err := r.Kill(); err != nil {
			c.tb.Fatalf("restart after the kill during commit %d: %v", i+1, err)
		}
		if k := c.check(r, o, fmt.Sprintf("after SIGKILL during commit %d", i+1)); k > o.Acknowledged() {
			landed = append(landed, ws)
		}
	}
}

// Repro is the command that reruns a run of the suite: the same seed and
// sizes against the same command draw the same cases.
func Repro(command string, o Options) string {
	o = o.withDefaults()
	line := fmt.Sprintf("frameproof conform --suite store --exec %s --seed %d --checks %d --steps %d --kill-commits %d",
		quote(command), o.Seed, o.Checks, o.Steps, o.KillCommits)
	for _, c := range o.Only {
		line += " --case " + quote(c)
	}
	return line
}

// quote is s as one POSIX shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
