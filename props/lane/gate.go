package lane

import (
	"errors"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

// errCrashed is what every commit returns once the driver killed the
// process: nothing after the crash point reaches storage.
var errCrashed = errors.New("props/lane: process crashed")

// gate makes the goroutine lane deterministic without a scheduler. Every
// commit parks at the gate unless the gate is open or the driver handed out
// a release token. The gate opens while any actor waits on an env future
// (a command, a drain, Close): blocking reveals itself, so admitted work
// flows exactly when the implementation waits for it, and otherwise only
// when the driver releases it, one commit at a time, from inside the
// provider's Next. The line is the only other actor, so at any moment one
// goroutine runs.
type gate struct {
	mu          sync.Mutex
	cond        *sync.Cond
	openDepth   int  // actors currently waiting on a future
	tokens      int  // commits the driver released
	parked      bool // the line actor is blocked at the gate
	passed      int  // commits that went through
	outstanding int  // line items admitted and not resolved
	commits     int  // commit attempts in this process
	crashAt     int  // 0: none; n: the n-th commit attempt and later fail
	dead        bool // crashed: every commit fails
	onDeath     func()
}

func newGate() *gate {
	g := &gate{}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// pass is called by the store wrapper before a commit; it reports whether
// the commit may reach storage.
func (g *gate) pass() bool {
	g.mu.Lock()
	for g.openDepth == 0 && g.tokens == 0 {
		g.parked = true
		g.cond.Broadcast()
		g.cond.Wait()
	}
	if g.openDepth == 0 {
		g.tokens--
	}
	g.parked = false
	g.passed++
	g.commits++
	died := false
	if !g.dead && g.crashAt > 0 && g.commits >= g.crashAt {
		g.dead, died = true, true
	}
	dead := g.dead
	onDeath := g.onDeath
	g.cond.Broadcast()
	g.mu.Unlock()
	if died && onDeath != nil {
		onDeath()
	}
	return !dead
}

// crashAtNextCommit makes the next commit attempt the crash point (unless
// one comes sooner).
func (g *gate) crashAtNextCommit() {
	g.mu.Lock()
	if g.crashAt == 0 || g.crashAt > g.commits+1 {
		g.crashAt = g.commits + 1
	}
	g.mu.Unlock()
}

// quiesce waits until the line is parked at the gate or idle.
func (g *gate) quiesce() {
	g.mu.Lock()
	for !g.parked && g.outstanding > 0 {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// release lets the parked commit through and waits for quiescence again.
// It reports whether anything was parked.
func (g *gate) release() bool {
	g.quiesce()
	g.mu.Lock()
	if !g.parked {
		g.mu.Unlock()
		return false
	}
	before := g.passed
	g.tokens++
	g.cond.Broadcast()
	for g.passed == before {
		g.cond.Wait()
	}
	g.mu.Unlock()
	g.quiesce()
	return true
}

func (g *gate) isDead() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dead
}

// kill makes every later commit fail.
func (g *gate) kill() {
	g.mu.Lock()
	g.dead = true
	g.mu.Unlock()
}

// reset starts a new process: alive, no tokens, a new crash plan.
func (g *gate) reset(crashAt int) {
	g.mu.Lock()
	g.dead, g.tokens, g.commits, g.crashAt = false, 0, 0, crashAt
	g.mu.Unlock()
}

// gatedStore parks every commit at the gate and fails it after a crash.
type gatedStore struct {
	store.Storage
	g *gate
	// acked is told every acknowledged non-empty transaction
	acked func(ws []store.Write)
	// rewrite, when set, replaces the writes before they commit
	rewrite func([]store.Write) []store.Write
}

func (s *gatedStore) Commit(ws []store.Write) (store.CommitResult, error) {
	if !s.g.pass() {
		return store.CommitResult{}, errCrashed
	}
	if s.rewrite != nil {
		ws = s.rewrite(ws)
	}
	res, err := s.Storage.Commit(ws)
	if err == nil && len(ws) > 0 && s.acked != nil {
		s.acked(ws)
	}
	return res, err
}

// gateExec wraps goroutines: waiting on a future opens the gate; line items
// are counted; the resolution of an external finalization is reported in
// line order.
type gateExec struct {
	g          *gate
	inner      env.Executor
	onFinalize func(err error)
}

func (e *gateExec) Go(name string, fn func()) { e.inner.Go(name, fn) }

func (e *gateExec) NewFuture(name string) env.Completer {
	cmd, line := lane.LineCommand(name)
	f := &gateFuture{Completer: e.inner.NewFuture(name), e: e, cmd: cmd, line: line}
	if f.line {
		e.g.mu.Lock()
		e.g.outstanding++
		e.g.mu.Unlock()
	}
	return f
}

type gateFuture struct {
	env.Completer
	e        *gateExec
	cmd      lane.Command // a line item's command ("" otherwise)
	line     bool
	resolved bool
}

func (f *gateFuture) Resolve(err error) {
	g := f.e.g
	g.mu.Lock()
	first := !f.resolved
	f.resolved = true
	g.mu.Unlock()
	if first && f.cmd == lane.CmdFinalize && f.e.onFinalize != nil {
		f.e.onFinalize(err)
	}
	f.Completer.Resolve(err)
	if first && f.line {
		g.mu.Lock()
		g.outstanding--
		g.cond.Broadcast()
		g.mu.Unlock()
	}
}

func (f *gateFuture) Wait() error {
	g := f.e.g
	g.mu.Lock()
	g.openDepth++
	g.cond.Broadcast()
	g.mu.Unlock()
	err := f.Completer.Wait()
	g.mu.Lock()
	g.openDepth--
	g.mu.Unlock()
	return err
}
