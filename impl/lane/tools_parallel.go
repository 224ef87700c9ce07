package lane

import (
	"fmt"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
)

// ToolsSequential is Config.ToolExecution's option: every batch in
// runSequential's order.
const ToolsSequential = "sequential"

// sequentialTools is runTools' choice: runSequential when the lane's
// option or the run's settings.toolExecution says "sequential".
func (l *Lane) sequentialTools(s *OpState) bool {
	return l.cfg.ToolExecution == ToolsSequential || isString(s.Settings.Prop("toolExecution"), "sequential")
}

// parallelRun is one runParallel: the calls' jobs, each an actor of the
// lane's executor, and the chain that runs their materializations one at a
// time in the order the jobs asked (scheduleMaterialization).
type parallelRun struct {
	l        *Lane
	op       string
	src      *batchSource
	recovery bool

	mu       sync.Mutex
	tail     env.Future // the last scheduled materialization (nil: none)
	pending  int        // jobs not yet ended
	looped   bool       // the loop started every job
	firstErr error      // the first job to fail, in time order
	complete bool       // a materialization placed the batch's last call
	allDone  env.Completer
}

// runParallel is tools.ts runParallel: in call order, each open call (as
// runTools' read saw it) is started — its immediate outcome's command
// queued, or its intent committed and its run admitted, or a restored
// call's replay clear or checkpoint read done — before the next; each
// call's outcome commits when its run ends, and then a materialization
// places what is ready. After every job, one more materialization. Unlike
// pi's Promise.all, a failed job (or loop) returns only once every started
// job ended: the error is the same, and no actor outlives the step.
func (l *Lane) runParallel(op string, cur *OpState, src *batchSource, ts *toolSet, recovery bool) (bool, error) {
	p := &parallelRun{l: l, op: op, src: src, recovery: recovery, allDone: l.cfg.Exec.NewFuture("tools-parallel:" + op)}
	var loopErr error
	for _, call := range cur.Calls {
		staged := call.status() == CallOutcomeReady && !l.cfg.bugs.on(bugResumeReopensStaged)
		if call.status() == CallCompleted || staged {
			continue
		}
		if loopErr = p.startCall(call, ts); loopErr != nil {
			break
		}
	}
	if err := p.wait(); err != nil {
		return false, err
	}
	if loopErr != nil {
		return false, loopErr
	}
	if p.firstErr != nil {
		return false, p.firstErr
	}
	if err := p.materialize(); err != nil {
		return false, err
	}
	return p.complete, nil
}

// startCall is one iteration of runParallel's loop: startToolInvocation
// for a planned call, recoverToolInvocation (cancelled: as control is now)
// for a restored one.
func (p *parallelRun) startCall(call PlannedCall, ts *toolSet) error {
	l := p.l
	tc, err := p.src.toolCallFor(call)
	if err != nil {
		return l.faultWith(err)
	}
	if call.status() == CallPlanned {
		return p.startPlanned(call, tc, ts)
	}
	cancelled := true
	if cur := l.currentTools(p.op); cur != nil {
		cancelled = cur.Control.CancelRequested
	}
	if t, ok := ts.byName[tc.Name]; ok && !cancelled && call.Replay == "safe" && t.replay() == "safe" {
		args, err := l.clearReplay(p.op, p.src.turnID, call, tc)
		if err != nil {
			return err
		}
		return p.run(call, t, tc, args, true)
	}
	cp, err := l.readCheckpoint(p.op, call)
	if err != nil {
		return err
	}
	p.spawn(call, l.queueOutcome(p.op, call, l.interruptedOutcome(tc, cp), true))
	return nil
}

// startPlanned is startToolInvocation: an immediate outcome (truncated,
// unavailable; aborted when the intent found the cancel) is queued without
// awaiting it; otherwise the intent commits and the run starts.
func (p *parallelRun) startPlanned(call PlannedCall, tc pi.ToolCall, ts *toolSet) error {
	l := p.l
	if p.src.assistant.StopReason == pi.StopLength {
		p.spawn(call, l.queueOutcome(p.op, call, l.truncatedOutcome(tc), p.recovery))
		return nil
	}
	t, ok := ts.find(tc.Name)
	if !ok {
		p.spawn(call, l.queueOutcome(p.op, call, l.unavailableOutcome(tc), p.recovery))
		return nil
	}
	args := tc.Arguments
	if args.IsUndefined() {
		return l.faultWith(fmt.Errorf("lane: tool call %s (%s) of operation %s has no arguments", tc.ID, tc.Name, p.op))
	}
	cancelled, err := l.publishIntent(p.op, call, tc, args, t.replay(), p.recovery)
	if err != nil {
		return err
	}
	if cancelled {
		p.spawn(call, l.queueOutcome(p.op, call, l.abortedOutcome(tc), p.recovery))
		return nil
	}
	pending := PlannedCall{Status: CallEffectPending, SourceIndex: call.SourceIndex, ResultEntryID: call.ResultEntryID, Replay: t.replay()}
	return p.run(pending, t, tc, args, p.recovery)
}

// run is performToolInvocation then publishToolOutcome in a job of its
// own. The gate admits the run before the loop goes on, and the run starts
// at once (pi's executeToolCall calls execute inside admit): the loop waits
// until the job has the gate's answer.
func (p *parallelRun) run(call PlannedCall, t Tool, tc pi.ToolCall, args pi.JSONValue, recovery bool) error {
	l := p.l
	admitted := l.cfg.Exec.NewFuture("tool-admission:" + call.ResultEntryID)
	p.spawn(call, func() error {
		_, aborting := l.admit(p.op)
		admitted.Resolve(nil)
		out, err := l.performAdmitted(aborting, t, tc, args, recovery)
		if err != nil {
			return err
		}
		return l.queueOutcome(p.op, call, out, recovery)()
	})
	return admitted.Wait()
}

// spawn starts job (it ends with the call's outcome committed) in an actor;
// once it succeeded it schedules a materialization.
func (p *parallelRun) spawn(call PlannedCall, job func() error) {
	p.mu.Lock()
	p.pending++
	p.mu.Unlock()
	p.l.cfg.Exec.Go("tool:"+call.ResultEntryID, func() {
		err := job()
		if err == nil {
			err = p.materialize()
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil && p.firstErr == nil {
			p.firstErr = err
		}
		p.pending--
		if p.pending == 0 && p.looped {
			p.allDone.Resolve(nil)
		}
	})
}

// wait returns once every started job ended.
func (p *parallelRun) wait() error {
	p.mu.Lock()
	p.looped = true
	if p.pending == 0 {
		p.allDone.Resolve(nil)
	}
	p.mu.Unlock()
	return p.allDone.Wait()
}

// materialize is scheduleMaterialization: materializeReady after every
// earlier scheduled one ended (whatever its result).
func (p *parallelRun) materialize() error {
	mine := p.l.cfg.Exec.NewFuture("tools-materialize:" + p.op)
	p.mu.Lock()
	prev := p.tail
	p.tail = mine
	p.mu.Unlock()
	defer mine.Resolve(nil)
	if prev != nil {
		if err := prev.Wait(); err != nil {
			return err
		}
	}
	complete, err := p.l.materializeReady(p.op, p.src, p.recovery)
	if complete {
		p.mu.Lock()
		p.complete = true
		p.mu.Unlock()
	}
	return err
}
