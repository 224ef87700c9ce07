package lane

import "github.com/frameproof/frameproof/impl/env"

// activeDrive is pi's Lane.activeDrive (runtime/lane.ts): the one drive
// that runs procedures on this lane. Step and Drive claim it; a second
// caller never runs a procedure beside it (pi's DriveClaim):
//   - "observe": the active drive drives the operation the caller would
//     drive; the caller awaits its completion and returns its result;
//   - "occupied": it drives another operation; the caller awaits its
//     completion and claims again.
//
// This is the one-driver premise of the fence proof at progress.owns.
// Calling Step or Drive from a Listener while the active drive emits waits
// for that drive, which awaits the listener: it never returns, as awaiting
// lane.drive inside a pi event handler never does.
type activeDrive struct {
	op   string
	done env.Completer
	// result and err are the drive's return, written before done resolves.
	result StepResult
	err    error
}

// claimed runs pass as the lane's active drive, or observes the active
// drive. A call that finds the active drive's operation already settled
// (no current operation) observes it too: pi's claim then returns that
// operation's stored outcome, which is what the active drive returns. With
// no current operation and no active drive there is nothing to drive: pass
// runs unclaimed (it returns idle at once).
func (l *Lane) claimed(pass func() (StepResult, error)) (StepResult, error) {
	return l.claimedFor("", pass)
}

// claimedFor is claimed for the drive of operation want ("": whatever is
// current), pi's claim with options.operationId: once want is neither
// current nor the active drive's, the operation settled and the drive
// returns at once (pi returns its stored outcome; this lane reports idle)
// rather than driving the operation current now.
func (l *Lane) claimedFor(want string, pass func() (StepResult, error)) (StepResult, error) {
	for {
		l.mu.Lock()
		op := ""
		if l.view.op != nil {
			op = l.view.op.ID
		}
		d := l.active
		switch {
		case want != "" && op != want && (d == nil || d.op != want):
			l.mu.Unlock()
			return StepResult{Kind: StepIdle}, nil
		case d == nil && op == "":
			l.mu.Unlock()
			return pass()
		case d == nil:
			d = &activeDrive{op: op, done: l.cfg.Exec.NewFuture("drive:" + op)}
			l.active = d
			l.mu.Unlock()
			return l.own(d, pass)
		}
		l.mu.Unlock()
		if err := d.done.Wait(); err != nil {
			return StepResult{}, err
		}
		if op == "" || d.op == op {
			return d.result, d.err // observe
		}
		// occupied: the active drive drove another operation; claim again
	}
}

// own runs pass as d and releases the claim however pass ends.
func (l *Lane) own(d *activeDrive, pass func() (StepResult, error)) (r StepResult, err error) {
	defer func() {
		l.mu.Lock()
		d.result, d.err = r, err
		if l.active == d {
			l.active = nil
		}
		l.mu.Unlock()
		d.done.Resolve(nil)
	}()
	return pass()
}
