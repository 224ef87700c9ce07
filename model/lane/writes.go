package lane

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// Namespaces of the scalar and list built-ins the lifecycle transactions
// write, as pi's session/values.ts spells them.
const (
	nsBranchTip  = "pi.branch.tip"
	nsLaneState  = "pi.lane.state"
	nsLaneConfig = "pi.lane.config"
	nsResult     = "pi.result"
	nsOpMeta     = "pi.op.meta"
	nsOpState    = "pi.op.state"
	nsPrep       = "pi.op.preparation"
	// nsPendingEntry holds queued input's messages (session/values.ts
	// pendingEntry).
	nsPendingEntry = "pi.pending.entry"
)

// TXWrite is one write of a transaction the model expects, in pi's order.
// A driver compares an acknowledged transaction's writes with these, one by
// one: kind, op and address always; an entry's parent; a value's canonical
// JSON when Value is not "" (the model does not know every encoded state).
type TXWrite struct {
	Kind      string // "entry" | "usage" | "value" | "list"
	Op        string // value: "set" | "delete"; list: "append" | "delete"; "" for entry and usage
	Namespace string // value and list writes
	// Key is a value's or list's key, or an entry's or usage row's id.
	Key string
	// KeyIsPrefix: the key is Key followed by an id the implementation
	// mints (a structural task id), which the model cannot know.
	KeyIsPrefix bool
	Parent      string // entry: its parent id ("" for a root)
	Value       string // canonical JSON of a set value or appended element, "" = not compared
}

// String is the write as comparisons print it.
func (w TXWrite) String() string {
	var b strings.Builder
	b.WriteString(w.Kind)
	if w.Op != "" {
		b.WriteString(" " + w.Op)
	}
	if w.Namespace != "" {
		b.WriteString(" " + w.Namespace + "/")
	} else {
		b.WriteString(" ")
	}
	b.WriteString(w.Key)
	if w.KeyIsPrefix {
		b.WriteString("*")
	}
	if w.Kind == "entry" {
		fmt.Fprintf(&b, " parent=%q", w.Parent)
	}
	if w.Value != "" {
		b.WriteString(" = " + w.Value)
	}
	return b.String()
}

func setValue(ns, key, value string) TXWrite {
	return TXWrite{Kind: "value", Op: "set", Namespace: ns, Key: key, Value: value}
}

func deleteValue(ns, key string) TXWrite {
	return TXWrite{Kind: "value", Op: "delete", Namespace: ns, Key: key}
}

func deleteFrames(op, resp string) TXWrite {
	return TXWrite{Kind: "list", Op: "delete", Namespace: FramesNamespace, Key: FramesKey(op, resp)}
}

// expectTX records the writes of the transaction the input just applied
// stands for (TakeTX hands them to the driver).
func (m *Model) expectTX(ws ...TXWrite) {
	m.tx, m.txKnown, m.txFresh = append([]TXWrite{}, ws...), true, true
	if len(ws) > 0 {
		m.txLog = append(m.txLog, m.tx)
	}
}

// TXLog lists the write lists of every transaction the model has applied so
// far, in the order it applied them (a driver that cannot feed inputs at
// their commits compares the sequence instead of each one).
func (m *Model) TXLog() [][]TXWrite { return append([][]TXWrite(nil), m.txLog...) }

// TakeTX returns the writes, in order, of the transaction the last applied
// input stands for, and forgets them. known is false when no input since the
// last TakeTX stated one. The transactions stated are every one the lane
// model stands for: run start (acceptRun), the run's start step
// (checkpoint.ts startRun) and checkpoint (runCheckpoint), intent (publishGenerationIntent,
// a deferred poll's intent), frame append (progress.ts), settlement
// (publishResponse, which also settles recovery's synthetic response),
// retry (runRetryWait), cancel (requestOperationAbort) and terminal
// (settleOperation's finish: drive terminate and external finalization).
func (m *Model) TakeTX() (ws []TXWrite, known bool) {
	ws, known = m.tx, m.txKnown
	m.tx, m.txKnown = nil, false
	return ws, known
}

// settlementWrites is publishResponse's TX (runtime/drive/response.ts):
// entry, usage, branch tip, then the frame list delete, an overflow's
// compaction preparation (when next is summary.deciding) and the next op
// state — or, for a failure, the terminal suffix. parent is the tip before it.
func (m *Model) settlementWrites(op string, o Op, resp, parent string, next *Op) []TXWrite {
	ws := []TXWrite{
		{Kind: "entry", Key: resp, Parent: parent},
		{Kind: "usage", Key: o.UsageID},
		setValue(nsBranchTip, m.cfg.Lane, jsonString(resp)),
	}
	if next == nil {
		return append(ws, m.terminalWrites(op, o)...)
	}
	ws = append(ws, deleteFrames(op, resp))
	if next.At == AtSummaryDeciding {
		ws = append(ws, TXWrite{Kind: "value", Op: "set", Namespace: nsPrep, Key: op + ":", KeyIsPrefix: true, Value: next.Preparation})
	}
	return append(ws, setValue(nsOpState, op, ""))
}

// terminalWrites is operationCleanupWrites (runtime/drive/terminal.ts)
// followed by the result and lane state settleOperation's finish sets. The
// model's tools store no memos and no progress checkpoints, so the cleanup
// is op meta, op state, a tool batch's stored arguments, a summary.deciding
// operation's compaction preparation, an effect_pending frame list and the
// pending entries of a batch's outcome_ready calls.
func (m *Model) terminalWrites(op string, o Op) []TXWrite {
	ws := []TXWrite{deleteValue(nsOpMeta, op), deleteValue(nsOpState, op)}
	if o.At == AtTools {
		ws = append(ws, m.ops[op].toolArgDeletes()...)
	}
	if o.Preparation != "" {
		ws = append(ws, TXWrite{Kind: "value", Op: "delete", Namespace: nsPrep, Key: op + ":", KeyIsPrefix: true})
	}
	if o.effectPending() {
		ws = append(ws, deleteFrames(op, o.ResponseEntryID))
	}
	if o.At == AtTools {
		for _, id := range m.ops[op].stagedIDs() {
			ws = append(ws, deleteValue(nsPendingEntry, id))
		}
	}
	return append(ws, setValue(nsResult, op, ""), setValue(nsLaneState, m.cfg.Lane, ""))
}

// cancelWrites is requestOperationAbort's TX (runtime/lane.ts): the pending
// entries of the queued steer and followUp items deleted in inbox order, the
// op state with cancel_requested, the lane state.
func (m *Model) cancelWrites(op string) []TXWrite {
	var ws []TXWrite
	for _, it := range m.st.Lane.Inbox {
		if steering(it.Kind) {
			ws = append(ws, deleteValue(nsPendingEntry, it.EntryID))
		}
	}
	return append(ws, setValue(nsOpState, op, ""), setValue(nsLaneState, m.cfg.Lane, ""))
}

func jsonString(s string) string { return string(pi.StringValue(s).AppendJSON(nil)) }
