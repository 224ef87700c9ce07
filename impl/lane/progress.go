package lane

import (
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// progress is pi's ProgressChannel for one response's frames: every write
// is enqueued synchronously as a fenced append on the line; only the latest
// future is kept (FIFO: it settling implies every earlier append settled).
// Failures are observed inside the line work itself, which faults the lane
// at the moment of failure, so no future needs a separate observer.
type progress struct {
	l      *Lane
	op     string
	resp   string
	addr   store.Address
	sealed bool
	latest env.Future
}

func (l *Lane) openProgress(op, resp string) *progress {
	return &progress{l: l, op: op, resp: resp, addr: FramesAddr(op, resp)}
}

// owns is the invocation fence, pi's (runtime/progress.ts
// openFrameProgress): the current operation is at
// {assistant,deferred}.effect_pending with the frame's responseEntryId,
// judged from in-process state only. Like pi's, it does not compare the
// operation id: response ids are fresh (minted by the intent of the one
// operation whose state carries them), so a state holding the frame's
// responseEntryId is the frame's own operation's, and a frame meeting
// another operation fails on the response id. frameproof's fence used to
// check the operation id too; it never decided a frame.
//
// When the response-id half decides. It declines a frame of response A
// reaching its turn while the current operation is effect_pending on
// another response B. A frame of another operation meets that, and is
// declined as pi declines it. For its own operation a lane process never
// reaches it:
//   - one driver: Step and Drive hold pi's single drive claim (claim.go,
//     pi's Lane.activeDrive); a second caller observes the active drive and
//     runs no procedure beside it;
//   - the view changes only inside line work (commandAsync), and the line
//     runs its work one at a time in enqueue order;
//   - only the driver installs a new responseEntryId (runGeneration's and
//     pollDeferred's intents), and it enqueues A's frames only inside
//     respond(A), which returns after drain (every frame of A had its turn)
//     or with the lane faulted or closed (the line is sealed: no later
//     intent is admitted);
//   - another process has its own line and view: an old process's frames
//     are judged against the old view, which a restarted process's
//     replacement intent never changes.
//
// fence_test.go checks that retries and deferred replacement never reach
// it, and that a second concurrent driver observes instead of stepping
// (TestSecondDriverObservesTheActiveDrive).
func (p *progress) owns(v view) bool {
	if p.l.cfg.bugs.on(bugFenceIgnoresResponse) {
		return true
	}
	return v.op != nil && v.op.State.At.IsEffectPending() && v.op.State.ResponseEntryID == p.resp
}

func (p *progress) write(f *pi.Frame, eventIndex int, eventType pi.EventType) {
	if p.sealed {
		return
	}
	raw, err := pi.Marshal(f)
	if err != nil {
		p.l.faultWith(err)
		return
	}
	l := p.l
	rec := FrameRecord{OperationID: p.op, ResponseEntryID: p.resp, EventIndex: eventIndex, EventType: eventType}
	enq := rec
	enq.Frame, enq.Outcome = raw, FrameEnqueued
	l.onFrame(enq)
	atEnqueue := false
	if l.cfg.bugs.on(bugFenceAtEnqueue) {
		l.mu.Lock()
		atEnqueue = p.owns(l.view)
		l.mu.Unlock()
	}
	p.latest = l.line.Run(string(CmdFrame), func() error {
		l.mu.Lock()
		ok := p.owns(l.view)
		l.mu.Unlock()
		if l.cfg.bugs.on(bugFenceAtEnqueue) {
			ok = atEnqueue
		}
		if !ok {
			out := rec
			out.Outcome = FrameDeclined
			l.onFrame(out)
			return nil
		}
		res, err := l.commitWrites([]store.Write{store.AppendListRaw(p.addr, raw)})
		out := rec
		if err != nil {
			out.Outcome = FrameFailed
			l.onFrame(out)
			return l.faultWith(err)
		}
		out.Outcome, out.Seq = FrameCommitted, res.FirstSeq
		l.onFrame(out)
		return nil
	})
}

func (p *progress) seal() { p.sealed = true }

// drain awaits the latest write; it fails with that write's error, and with
// the lane's fault if any earlier write faulted it.
func (p *progress) drain() error {
	if p.latest != nil {
		if err := p.latest.Wait(); err != nil {
			return err
		}
	}
	return p.l.usable()
}
