package lane

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/frameproof/frameproof/impl/env"
)

// errAbortRequested is pi's AbortRequested (execution/effect-gate.ts): the
// drive's abort began before an effect was admitted, or signalled while a
// retry wait ran. It never leaves the package: the step awaits the
// cancellation and reports progress, and the next step reconciles.
var errAbortRequested = errors.New("Abort requested")

// maxTimerMs is the longest single timer waitUntil arms (setTimeout's
// 2_147_483_647 ms limit); a longer wait re-checks notBefore after each.
const maxTimerMs = 2_147_483_647

// driveGate is pi's effect gate of the drive of one operation
// (execution/effect-gate.ts createGate): open, then aborting once a cancel
// request begins (requestOperationAbort calls beginAbort synchronously,
// before its command reaches the line). Every later admission fails; the
// signal (Request.Abort, retry waits) fires only after the cancel command
// completed (signalAbort). The lane drives its current operation
// continuously, so the gate belongs to the operation id, not to a pass.
type driveGate struct {
	op           string
	cancellation env.Completer // nil while open
	signal       env.Completer // Request.Abort; resolved by signalAbort
	signalled    bool
	waiters      []env.Completer // retry waits to wake at signalAbort
}

// gateFor returns op's gate (l.mu held), replacing another op's.
func (l *Lane) gateFor(op string) *driveGate {
	if l.gate == nil || l.gate.op != op {
		l.gate = &driveGate{op: op, signal: l.cfg.Exec.NewFuture("abort:" + op)}
	}
	return l.gate
}

// beginAbort is Gate.beginAbort for the current operation's drive: it
// returns the cancellation to resolve when the cancel command completes, or
// nil when no operation is current, the current one is not op (when op is
// not "": pi begins the abort of the active drive of that operation only)
// or the gate is already aborting.
func (l *Lane) beginAbort(op string) env.Completer {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.view.op == nil || op != "" && l.view.op.ID != op {
		return nil
	}
	g := l.gateFor(l.view.op.ID)
	if g.cancellation != nil {
		return nil
	}
	g.cancellation = l.cfg.Exec.NewFuture("cancellation:" + g.op)
	return g.cancellation
}

// signalAbort is Gate.signalAbort: once op's abort began, resolve its
// signal and wake every retry wait.
func (l *Lane) signalAbort(op string) {
	l.mu.Lock()
	g := l.gate
	if g == nil || g.op != op || g.cancellation == nil || g.signalled {
		l.mu.Unlock()
		return
	}
	g.signalled = true
	waiters := g.waiters
	g.waiters = nil
	l.mu.Unlock()
	g.signal.Resolve(nil)
	for _, w := range waiters {
		w.Resolve(errAbortRequested)
	}
}

// closeGate is Gate.close for op's drive (Lane.seal on a fault or close):
// its signal aborts the request in flight so the provider ends the stream.
func (l *Lane) closeGate(op string) {
	l.mu.Lock()
	g := l.gate
	l.mu.Unlock()
	if g != nil && g.op == op {
		g.signal.Resolve(nil)
	}
}

// admitRequest is Gate.admit before a provider request: once the lane is
// sealed (Harness.close or a fault: runtime/lane.js seal closes the active
// drive's gate), execution/effect-gate.js check() throws the seal's error
// and the request never starts — a drive whose intent commit was parked
// when the harness closed lands it and then streams nothing.
func (l *Lane) admitRequest(op string) (signal, aborting env.Future, err error) {
	if err := l.usable(); err != nil {
		return nil, nil, err
	}
	signal, aborting = l.admit(op)
	return signal, aborting, nil
}

// admit is Gate.admit for op: the abort signal to hand the effect, or the
// cancellation to await when the drive's abort already began (the effect is
// then never started).
func (l *Lane) admit(op string) (signal env.Future, aborting env.Future) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.gateFor(op)
	if g.cancellation != nil {
		return nil, g.cancellation
	}
	return g.signal, nil
}

// awaitCancellation is the drive's AbortRequested handler (runtime/drive.ts):
// wait for the cancel command, then continue (the next step reconciles).
func awaitCancellation(cancellation env.Future) (StepResult, error) {
	if err := cancellation.Wait(); err != nil {
		return StepResult{}, err
	}
	return StepResult{Kind: StepProgress}, nil
}

// waitUntil is retry.ts's waitUntil(notBefore, signal): wait in timers of
// at most maxTimerMs, re-reading the clock after each, until notBefore has
// passed; a signalled abort ends the wait with errAbortRequested. A timer
// that a signal overtook still runs out on its own (env.Clock has no
// cancellable timer); it wakes nobody.
func (l *Lane) waitUntil(op string, notBefore float64) error {
	for {
		remaining := notBefore - l.now()
		if remaining <= 0 {
			return nil
		}
		wake := l.cfg.Exec.NewFuture("retry-wait:" + op)
		l.mu.Lock()
		g := l.gateFor(op)
		if g.signalled {
			l.mu.Unlock()
			return errAbortRequested
		}
		g.waiters = append(g.waiters, wake)
		l.mu.Unlock()
		ms := math.Min(remaining, maxTimerMs)
		l.cfg.Exec.Go("retry-timer:"+op, func() {
			l.cfg.Clock.Sleep(time.Duration(ms * float64(time.Millisecond)))
			wake.Resolve(nil)
		})
		err := wake.Wait()
		l.mu.Lock()
		// a resolved wake needs no signal: drop it, so an operation's
		// waiters do not pile up over its retry waits
		g.waiters = slices.DeleteFunc(g.waiters, func(c env.Completer) bool { return c == env.Completer(wake) })
		signalled := l.gate != nil && l.gate.op == op && l.gate.signalled
		l.mu.Unlock()
		if err != nil {
			return err
		}
		if signalled {
			return errAbortRequested
		}
	}
}
