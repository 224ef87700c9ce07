package lanesim

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/linz"
)

// The client-visible history, partitioned by operation id. Commits the
// lane acknowledges (intent, settlement, terminal) are instantaneous
// operations; frame appends (enqueue → commit/decline) and external
// finalizations (call → return) span time and may overlap; snapshot reads
// are instantaneous. Operations cut by a crash are indefinite.

type linzInput struct {
	Kind string // intent | append | settle | terminal | finalize | snapshot
	Op   string
	Resp string
}

type linzOutput struct {
	Result  string // append: committed|declined; finalize: ok|none
	Pending bool   // snapshot: effect_pending
	Resp    string // snapshot
	Frames  int    // snapshot: durable frames (-1: live partial)
}

type opModelState struct {
	Terminal bool
	Resp     string
	Frames   int
}

var opModel = (&porcupine.NondeterministicModel{
	Partition: linz.PartitionBy(func(in any) string { return in.(linzInput).Op }),
	Init:      func() []any { return []any{opModelState{}} },
	Step: func(state, input, output any) []any {
		s, in := state.(opModelState), input.(linzInput)
		indef := linz.IsIndefinite(output)
		var out linzOutput
		if !indef {
			out = output.(linzOutput)
		}
		switch in.Kind {
		case "intent":
			if s.Terminal {
				return nil
			}
			return []any{opModelState{Resp: in.Resp}}
		case "settle":
			if s.Terminal || s.Resp != in.Resp {
				return nil
			}
			return []any{opModelState{}}
		case "terminal":
			if s.Terminal {
				return nil
			}
			return []any{opModelState{Terminal: true}}
		case "append":
			ok := !s.Terminal && s.Resp == in.Resp
			applied := s
			applied.Frames++
			switch {
			case indef && ok:
				return []any{s, applied}
			case indef:
				return []any{s}
			case out.Result == "committed" && ok:
				return []any{applied}
			case out.Result == "declined" && !ok:
				return []any{s}
			}
			return nil
		case "finalize":
			switch {
			case indef && !s.Terminal:
				return []any{s, opModelState{Terminal: true}}
			case indef:
				return []any{s}
			case out.Result == "ok" && !s.Terminal:
				return []any{opModelState{Terminal: true}}
			case out.Result == "none" && s.Terminal:
				return []any{s}
			}
			return nil
		case "snapshot":
			if indef {
				return []any{s}
			}
			if s.Terminal || s.Resp == "" {
				if out.Pending {
					return nil
				}
				return []any{s}
			}
			if !out.Pending || out.Resp != s.Resp || (out.Frames >= 0 && out.Frames != s.Frames) {
				return nil
			}
			return []any{s}
		}
		return nil
	},
	DescribeOperation: func(in, out any) string {
		i := in.(linzInput)
		if linz.IsIndefinite(out) {
			return fmt.Sprintf("%s %s → ?", i.Kind, short(i.Resp))
		}
		o := out.(linzOutput)
		if i.Kind == "snapshot" {
			return fmt.Sprintf("snapshot → pending=%v %s frames=%d", o.Pending, short(o.Resp), o.Frames)
		}
		return fmt.Sprintf("%s %s → %s", i.Kind, short(i.Resp), o.Result)
	},
	DescribeState: func(st any) string {
		s := st.(opModelState)
		return fmt.Sprintf("terminal=%v resp=%s frames=%d", s.Terminal, short(s.Resp), s.Frames)
	},
}).ToModel()

func short(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

type linzState struct {
	r       *runner
	appends map[string]linz.OpID // resp/eventIndex/gen -> op
	pending map[linz.OpID]bool
}

func newLinzState(r *runner) *linzState {
	return &linzState{r: r, appends: map[string]linz.OpID{}, pending: map[linz.OpID]bool{}}
}

func (l *linzState) instant(client string, in linzInput, out linzOutput) {
	id := l.r.rec.Call(client, in)
	_ = l.r.rec.Return(id, out)
}

func (l *linzState) call(client string, in linzInput) linz.OpID {
	id := l.r.rec.Call(client, in)
	l.pending[id] = true
	return id
}

func (l *linzState) ret(id linz.OpID, out linzOutput) {
	if l.pending[id] {
		delete(l.pending, id)
		_ = l.r.rec.Return(id, out)
	}
}

func (l *linzState) cut(id linz.OpID, cause string) {
	if l.pending[id] {
		delete(l.pending, id)
		l.r.rec.Cut(id, cause)
	}
}

// crash cuts everything the dying process had in flight.
func (l *linzState) crash(cause string) {
	for k, id := range l.appends {
		l.cut(id, cause)
		delete(l.appends, k)
	}
}

func appendKey(fr lane.FrameRecord, gen int) string {
	// fmt.Sprintf("%s/%d/%d", ...) without fmt: twice per frame
	return fr.ResponseEntryID + "/" + strconv.Itoa(fr.EventIndex) + "/" + strconv.Itoa(gen)
}

func (l *linzState) appendCall(fr lane.FrameRecord) {
	l.appends[appendKey(fr, l.r.gen)] = l.call("line", linzInput{Kind: "append", Op: fr.OperationID, Resp: fr.ResponseEntryID})
}

func (l *linzState) appendReturn(fr lane.FrameRecord) {
	k := appendKey(fr, l.r.gen)
	id, ok := l.appends[k]
	if !ok {
		return
	}
	delete(l.appends, k)
	switch fr.Outcome {
	case lane.FrameCommitted:
		l.ret(id, linzOutput{Result: "committed"})
	case lane.FrameDeclined:
		l.ret(id, linzOutput{Result: "declined"})
	default:
		l.cut(id, "append failed")
	}
}

// settled is called from checkSettlement; commitOps derives the other
// instantaneous operations from an acknowledged commit.
func (l *linzState) settled(op, resp string) {
	l.instant("commits", linzInput{Kind: "settle", Op: op, Resp: resp}, linzOutput{Result: "ok"})
}

func (l *linzState) commitOps(ws []store.Write) {
	for _, w := range ws {
		if w.Kind != store.WriteValue || w.Op != store.OpSet {
			continue
		}
		switch w.Namespace {
		case lane.NSOpState:
			st, err := l.r.memo.decodeState(w.Value)
			if err == nil && st.At.IsEffectPending() && l.r.intent.reserve(st.ResponseEntryID) {
				l.instant("commits", linzInput{Kind: "intent", Op: w.Key, Resp: st.ResponseEntryID}, linzOutput{Result: "ok"})
			}
		case lane.NSResult:
			if !bytes.Contains(w.Value, []byte(finalizerMessage)) {
				l.instant("commits", linzInput{Kind: "terminal", Op: w.Key}, linzOutput{Result: "ok"})
			}
		}
	}
}

// snapshot records a snapshot read (instantaneous: Snapshot does not
// yield) with the durable frame count read in the same step.
// commit records the operations an acknowledged commit settled or started.
func (l *linzState) commit(e commitEvent) bool {
	l.commitOps(e.ws)
	return true
}

func (l *linzState) snapshot(_ *lane.Lane, snap *lane.Snapshot, client string) {
	if snap.OperationID == "" {
		return
	}
	out := linzOutput{Frames: -1}
	if snap.State != nil && snap.State.At.IsEffectPending() {
		out.Pending, out.Resp = true, snap.State.ResponseEntryID
		if !snap.Live {
			els, _ := l.r.st.ReadList(lane.FramesAddr(snap.OperationID, snap.State.ResponseEntryID), store.ReadOptions{Limit: 10_000})
			out.Frames = len(els)
		}
	}
	l.instant(client, linzInput{Kind: "snapshot", Op: snap.OperationID}, out)
}

// check runs porcupine over the history.
func (l *linzState) check() {
	r := l.r
	res, _ := r.rec.Check(opModel, 20*time.Second)
	r.checks++
	switch res {
	case porcupine.Illegal:
		r.failed, r.kind, r.msg = true, campaign.KindLinearizability, "the client-visible history of the lane is not linearizable (see the porcupine report)"
	case porcupine.Unknown:
		r.failed, r.kind, r.msg = true, "inconclusive", "porcupine timed out"
	}
}

// OpModel is the porcupine model of one operation's client-visible
// history (for reports: Visualize(OpModel(), ...)).
func OpModel() porcupine.Model { return opModel }
