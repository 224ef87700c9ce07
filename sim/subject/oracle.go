package subject

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	ml "github.com/frameproof/frameproof/model/lane"
)

// The oracle: model/lane fed from what a subject observably did, in the
// order it happened — a committed transaction, a provider request, a
// consumed provider event, an encoded frame — and each committed
// transaction's writes compared, one by one and with their values, with
// the write list model/lane states for it. A subject's internal command
// names are never read: which model input a transaction stands for is
// decided from its writes and from the step model/lane expects next.

// Namespaces pi's lifecycle transactions write (session/values.ts).
const (
	nsBranchTip    = "pi.branch.tip"
	nsLaneConfig   = "pi.lane.config"
	nsLaneState    = "pi.lane.state"
	nsOpMeta       = "pi.op.meta"
	nsOpState      = "pi.op.state"
	nsPendingEntry = "pi.pending.entry"
)

// txKind is what a committed transaction stands for.
type txKind int

const (
	txStep         txKind = iota // a drive step's transaction
	txLaneCreate                 // Harness.lane: the lane's creation
	txAccept                     // a run's acceptance
	txFrame                      // one frame append
	txCancel                     // requestOperationAbort's cancel_requested
	txEnqueue                    // steer / followUp / nextRun
	txUnqueue                    // cancelQueued
	txStepTerminal               // a step's terminal transaction (op meta deleted)
)

func (k txKind) String() string {
	return [...]string{"step", "lane-create", "accept", "frame", "cancel", "enqueue", "unqueue", "terminal"}[k]
}

// opState is the part of pi's operation state the oracle reads to name a
// transaction's model input (ids the subject minted).
type opState struct {
	At      string `json:"at"`
	Control struct {
		Status string `json:"status"`
	} `json:"control"`
	ResponseEntryID   string `json:"responseEntryId"`
	UsageID           string `json:"usageId"`
	Attempt           int    `json:"attempt"`
	GenerationContext *struct {
		StepID string `json:"stepId"`
	} `json:"generationContext"`
}

type entryRef struct {
	ID       string  `json:"id"`
	ParentID *string `json:"parentId"`
}

// Mismatch is a disagreement between the subject and model/lane.
type Mismatch struct {
	Where string
	Err   error
}

func (m *Mismatch) Error() string { return m.Where + ": " + m.Err.Error() }

type oracle struct {
	m   *ml.Model
	now float64
	run ml.Run
	// plan is the step model/lane expects the subject to be in (nil: the
	// next step transaction starts one); intent: the step committed its
	// intent.
	plan   *ml.Expect
	intent bool
	// live is the stream the model owns: its op, response and consumed
	// event count; frames holds the encoder outputs not yet paired with
	// their event
	liveOp, liveResp string
	liveEvents       int
	liveEnded        bool
	hooked           bool
	// abortIssued: an abort call was issued and its cancel not yet seen
	abortIssued bool
	txCompared  int
	// divergences counts the decided differences each comparison accepted
	divergences map[DivergenceID]int
	// cancelled records ops whose cancel committed (for the race rows)
	frameCommits int
	// recovered: the transaction just fed was a recovery's settlement
	recovered bool
	// permit: the running drive carries a deferred-poll permit (pi's
	// Drive.deferredPermits: Lane.resume's, spent by a poll intent)
	permit bool
}

func newOracle(model Model, lane string, run ml.Run, delayCap *float64, patterns pi.AIRelease) *oracle {
	o := &oracle{run: run, divergences: map[DivergenceID]int{}}
	o.m = ml.New(ml.Config{
		Lane:        lane,
		Now:         func() float64 { return o.now },
		NewObserver: func() ml.Observer { return modelframes.NewObserver() },
		Limits:      ml.Limits{MaxTokens: model.MaxTokens, ContextWindow: model.ContextWindow},
		// a subject's recovery read emits its synthetic message events
		// when its step begins (no caller commits in between here)
		SyntheticAtRead: false,
		// the release's retry-delay cap for a policy naming none
		DefaultMaxAgentDelayMs: delayCap,
		// the release's retry and overflow patterns
		ErrorPatterns: patterns,
	})
	return o
}

func mismatch(where string, err error) error {
	if err == nil {
		return nil
	}
	return &Mismatch{Where: where, Err: err}
}

// classify names what a committed transaction stands for from its writes.
func classify(ws []Write, m *ml.Model) txKind {
	if len(ws) == 1 && ws[0].Kind == WriteList && ws[0].Op == OpAppend && ws[0].Namespace == ml.FramesNamespace {
		return txFrame
	}
	hasMetaSet, hasConfig, pendingSet, pendingDelete, hasOpState, hasEntry := false, false, false, false, false, false
	var st *opState
	for _, w := range ws {
		switch {
		case w.Kind == WriteEntry:
			hasEntry = true
		case w.Namespace == nsOpMeta && w.Op == OpSet:
			hasMetaSet = true
		case w.Namespace == nsLaneConfig:
			hasConfig = true
		case w.Namespace == nsPendingEntry && w.Op == OpSet:
			pendingSet = true
		case w.Namespace == nsPendingEntry && w.Op == OpDelete:
			pendingDelete = true
		case w.Namespace == nsOpState && w.Op == OpSet:
			hasOpState = true
			st = &opState{}
			if json.Unmarshal(w.Value, st) != nil {
				st = nil
			}
		}
	}
	switch {
	case hasMetaSet:
		return txAccept
	case hasConfig && !hasOpState:
		return txLaneCreate
	case pendingSet && !hasOpState:
		return txEnqueue
	case pendingDelete && !hasOpState && !hasEntry:
		return txUnqueue
	}
	if st != nil && st.Control.Status == "cancel_requested" {
		if _, cancelled := m.Current(); !cancelled && len(ws) <= 2+countNS(ws, nsPendingEntry) {
			return txCancel
		}
	}
	return txStep
}

func countNS(ws []Write, ns string) int {
	n := 0
	for _, w := range ws {
		if w.Namespace == ns {
			n++
		}
	}
	return n
}

// txWrites renders a subject's writes in model/lane's vocabulary.
func txWrites(ws []Write) ([]ml.TXWrite, error) {
	out := make([]ml.TXWrite, len(ws))
	for i, w := range ws {
		t := ml.TXWrite{Kind: string(w.Kind), Op: string(w.Op), Namespace: w.Namespace, Key: w.Key}
		switch w.Kind {
		case WriteEntry:
			var e entryRef
			if err := json.Unmarshal(w.Entry, &e); err != nil {
				return nil, fmt.Errorf("write %d: entry: %w", i, err)
			}
			t.Key = e.ID
			if e.ParentID != nil {
				t.Parent = *e.ParentID
			}
		case WriteUsage:
			var e entryRef
			if err := json.Unmarshal(w.Row, &e); err != nil {
				return nil, fmt.Errorf("write %d: usage row: %w", i, err)
			}
			t.Key = e.ID
		default:
			if len(w.Value) > 0 {
				t.Value = ml.Canonical(w.Value)
			}
		}
		out[i] = t
	}
	return out, nil
}

// diffTX compares a subject's transaction with the model's write list:
// the same count, and write i of each agrees on kind, op, address, an
// entry's parent and, where the model states it, the value.
func diffTX(got, want []ml.TXWrite, seen map[DivergenceID]int) error {
	ok := len(got) == len(want)
	var used []DivergenceID
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		key := g.Key == w.Key
		if w.KeyIsPrefix {
			key = strings.HasPrefix(g.Key, w.Key) && len(g.Key) > len(w.Key)
		}
		ok = g.Kind == w.Kind && g.Op == w.Op && g.Namespace == w.Namespace && key && g.Parent == w.Parent
		if ok && w.Value != "" && g.Value != w.Value {
			var id DivergenceID
			id, ok = tolerated(g, w)
			used = append(used, id)
		}
	}
	if ok {
		for _, id := range used {
			seen[id]++
		}
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "transaction writes differ from model/lane's\n subject: %s\n model:   %s", listTX(got), listTX(want))
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := got[i], want[i]
		if g.Namespace == w.Namespace && g.Key == w.Key && w.Value != "" && g.Value != w.Value {
			fmt.Fprintf(&b, "\n write %d (%s %s/%s) value:\n  subject: %s\n  model:   %s", i, g.Kind, g.Namespace, g.Key, g.Value, w.Value)
			break
		}
	}
	return fmt.Errorf("%s", b.String())
}

func listTX(ws []ml.TXWrite) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.String()
		if len(parts[i]) > 200 {
			parts[i] = parts[i][:200] + "…"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// compare takes the model's write list for the input just fed and compares
// the subject's transaction with it.
func (o *oracle) compare(where string, ws []Write) error {
	want, known := o.m.TakeTX()
	if !known {
		return mismatch(where, fmt.Errorf("model/lane states no transaction for the commit %s", describe(ws)))
	}
	got, err := txWrites(ws)
	if err != nil {
		return mismatch(where, err)
	}
	o.txCompared++
	return mismatch(where, diffTX(got, want, o.divergences))
}

func describe(ws []Write) string {
	got, err := txWrites(ws)
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	return listTX(got)
}

// opStateIn is the operation state a transaction sets.
func opStateIn(ws []Write) (string, *opState, error) {
	for _, w := range ws {
		if w.Kind == WriteValue && w.Namespace == nsOpState && w.Op == OpSet {
			var st opState
			if err := json.Unmarshal(w.Value, &st); err != nil {
				return w.Key, nil, fmt.Errorf("op state %s: %w", w.Key, err)
			}
			return w.Key, &st, nil
		}
	}
	return "", nil, nil
}

// commit feeds one committed transaction and compares it. It returns the
// transaction's kind.
func (o *oracle) commit(ws []Write) (txKind, error) {
	kind := classify(ws, o.m)
	where := "transaction (" + kind.String() + ") " + describe(ws)
	switch kind {
	case txFrame:
		resp, idx, ok := o.oldestFrame()
		if !ok {
			return kind, mismatch(where, fmt.Errorf("a frame append committed with no frame enqueued"))
		}
		o.m.TakeTX()
		if err := o.m.FrameCommitted(resp, idx); err != nil {
			return kind, mismatch(where, err)
		}
		o.frameCommits++
		return kind, o.compare(where, ws)
	case txLaneCreate:
		o.m.Acquire(ml.LaneConfig{Model: o.run.Model, ThinkingLevel: o.run.ThinkingLevel, ActiveToolNames: o.run.ActiveToolNames})
		return kind, o.compare(where, ws)
	case txAccept:
		var op, user string
		for _, w := range ws {
			if w.Kind == WriteEntry {
				var e entryRef
				_ = json.Unmarshal(w.Entry, &e)
				user = e.ID
			}
			if w.Namespace == nsOpMeta {
				op = w.Key
			}
		}
		if err := o.m.StartRun(op, user, o.run); err != nil {
			return kind, mismatch(where, err)
		}
		return kind, o.compare(where, ws)
	case txCancel:
		o.m.Cancel()
		o.abortIssued = false
		return kind, o.compare(where, ws)
	case txEnqueue:
		id, kindName, message, err := enqueued(ws)
		if err != nil {
			return kind, mismatch(where, err)
		}
		if err := o.m.Enqueue(id, kindName, message); err != nil {
			return kind, mismatch(where, err)
		}
		return kind, o.compare(where, ws)
	case txUnqueue:
		for _, w := range ws {
			if w.Namespace == nsPendingEntry {
				if got := o.m.CancelQueued(w.Key); got != "cancelled" {
					return kind, mismatch(where, fmt.Errorf("cancelQueued %s committed; model/lane answers %s and commits nothing", w.Key, got))
				}
				return kind, o.compare(where, ws)
			}
		}
	}
	return kind, o.step(where, ws)
}

// enqueued reads an enqueue's entry id, queue kind and message (the
// pending entry's payload, canonical) from its writes.
func enqueued(ws []Write) (id, kind, message string, err error) {
	for _, w := range ws {
		switch {
		case w.Namespace == nsPendingEntry && w.Op == OpSet:
			var p struct {
				Payload json.RawMessage `json:"payload"`
			}
			if err := json.Unmarshal(w.Value, &p); err != nil {
				return "", "", "", fmt.Errorf("pending entry %s: %w", w.Key, err)
			}
			id, message = w.Key, ml.Canonical(p.Payload)
		case w.Namespace == nsLaneState && w.Op == OpSet:
			var st struct {
				Inbox []struct {
					Kind string `json:"kind"`
				} `json:"inbox"`
			}
			if err := json.Unmarshal(w.Value, &st); err != nil || len(st.Inbox) == 0 {
				return "", "", "", fmt.Errorf("enqueue's lane state names no inbox item (%v)", err)
			}
			kind = st.Inbox[len(st.Inbox)-1].Kind
		}
	}
	return id, kind, message, nil
}

// step feeds a drive step's transaction: the first transaction after the
// previous step ended starts the step model/lane expects.
func (o *oracle) step(where string, ws []Write) error {
	if err := o.beginStep(where); err != nil {
		return err
	}
	o.m.TakeTX()
	switch o.plan.Kind {
	case "start", "retry", "terminate":
		if o.plan.Kind == "terminate" && o.plan.Status == "completed" {
			// a may_finish boundary that places queued input mints the
			// next assistant step (boundary.ts finishRunBoundary)
			if _, st, err := opStateIn(ws); err == nil && st != nil && st.GenerationContext != nil {
				o.m.BoundaryStep(st.GenerationContext.StepID)
			}
		}
		o.plan = nil
		if _, err := o.m.StepDone(true); err != nil {
			return mismatch(where, err)
		}
	case "checkpoint":
		_, st, err := opStateIn(ws)
		if err != nil || st == nil || st.GenerationContext == nil {
			return mismatch(where, fmt.Errorf("model/lane expects a checkpoint step minting the assistant step; the transaction sets no generation context (%v)", err))
		}
		if err := o.m.Checkpoint(st.GenerationContext.StepID); err != nil {
			return mismatch(where, err)
		}
		o.plan = nil
		if _, err := o.m.StepDone(true); err != nil {
			return mismatch(where, err)
		}
	case "generate", "poll":
		if !o.intent {
			op, st, err := opStateIn(ws)
			if err != nil || st == nil {
				return mismatch(where, fmt.Errorf("model/lane expects the %s step's intent; the transaction sets no operation state (%v)", o.plan.Kind, err))
			}
			if err := o.m.Intent(op, st.ResponseEntryID, st.UsageID, st.Attempt); err != nil {
				return mismatch(where, err)
			}
			o.intent = true
			if o.plan.Kind == "poll" {
				o.permit = false // deferred.ts publishPollIntent materialize
			}
			o.liveOp, o.liveResp, o.liveEvents, o.liveEnded, o.hooked = op, st.ResponseEntryID, 0, false, false
			return o.compare(where, ws)
		}
		return o.settle(where, ws)
	case "recover":
		return o.settle(where, ws)
	default:
		return mismatch(where, fmt.Errorf("model/lane expects a %s step (%s), which commits nothing, but the subject committed", o.plan.Kind, o.plan.Reason))
	}
	return o.compare(where, ws)
}

// settle feeds a response settlement: after_response ran (pi runs it once
// every accepted frame settled), then the settlement, then the step's end.
func (o *oracle) settle(where string, ws []Write) error {
	o.recovered = o.plan.Kind == "recover"
	if o.plan.Kind != "recover" && o.liveEnded && !o.hooked {
		if err := o.afterResponse(); err != nil {
			return mismatch(where, err)
		}
	}
	if err := o.m.Settle(); err != nil {
		return mismatch(where, err)
	}
	err := o.compare(where, ws)
	o.plan = nil
	o.liveResp = ""
	if _, serr := o.m.StepDone(true); serr != nil && err == nil {
		err = mismatch(where, serr)
	}
	return err
}

// beginStep starts the step model/lane expects unless one is in progress.
func (o *oracle) beginStep(where string) error {
	if o.plan != nil {
		return nil
	}
	e, err := o.m.Step(o.permit)
	if err != nil {
		return mismatch(where, err)
	}
	o.plan, o.intent = &e, false
	return nil
}

// recoveryStart: the subject emitted a recovery's synthetic
// message_start, which pi's recovery step emits after its frame read and
// before its settlement commits (runtime/drive/recovery.ts): the step has
// begun.
func (o *oracle) recoveryStart() error {
	return o.beginStep("message_start(recovery)")
}

// afterResponse: the subject's after_response ran for the live stream
// (observable as its message_end, which pi emits once every accepted
// frame settled: runtime/drive/response.ts afterResponse drains first).
func (o *oracle) afterResponse() error {
	o.hooked = true
	return o.m.AfterResponse()
}

// messageEnd: the subject emitted a live (not recovery) message_end.
func (o *oracle) messageEnd() error {
	if o.liveResp == "" || !o.liveEnded || o.hooked {
		return nil
	}
	return mismatch("message_end", o.afterResponse())
}

// request: the subject made a provider request for the live intent.
func (o *oracle) request() error {
	return mismatch("provider request", o.m.Admit())
}

// consumed: the subject's harness consumed a provider event; frame is
// what its encoder produced for it (nil: none).
func (o *oracle) consumed(ev *pi.Event, frame json.RawMessage) error {
	if err := o.m.ProviderEvent(ev); err != nil {
		return mismatch("provider event "+string(ev.Type), err)
	}
	i := o.liveEvents
	o.liveEvents++
	if ev.Type == pi.EventDone || ev.Type == pi.EventError {
		o.liveEnded = true
	}
	if frame == nil {
		return nil
	}
	return mismatch(fmt.Sprintf("frame of event %d", i), o.m.FrameEnqueued(o.liveResp, i, ev.Type, frame))
}

// oldestFrame is the oldest enqueued frame the model holds, read from its
// queue through the live stream's bookkeeping.
func (o *oracle) oldestFrame() (string, int, bool) {
	return o.m.OldestQueuedFrame()
}

// crash: the subject's process died.
func (o *oracle) crash() {
	o.m.Crash()
	o.permit = false
	o.plan, o.intent, o.liveResp, o.liveEnded, o.abortIssued = nil, false, "", false, false
}

// close: Harness.close returned, a controlled crash (model/lane's Close):
// only what committed survives.
func (o *oracle) close() {
	o.m.Close()
	o.permit = false
	o.plan, o.intent, o.liveResp, o.liveEnded, o.abortIssued = nil, false, "", false, false
}

// idle: the subject is quiescent with nothing parked and no call in
// flight; the step model/lane expects, if any, must be one that commits
// nothing.
func (o *oracle) idle() error {
	if o.plan != nil {
		return mismatch("subject idle", fmt.Errorf("model/lane expects the %s step to commit, but the subject is idle", o.plan.Kind))
	}
	return nil
}
