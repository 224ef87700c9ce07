package lanesim

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/model/wire"
)

// checkWire projects the final transcript for every wire and validates the
// request body with model/wire.
func (r *runner) checkWire() {
	snap, err := r.ln.Snapshot()
	if err != nil {
		r.fail("wire", "final snapshot: %v", err)
		return
	}
	var lines []string
	for _, e := range snap.Transcript {
		v, err := pi.ParseJSON(string(e.Raw))
		if err != nil || v.Kind() != pi.Object {
			r.fail("wire", "transcript entry %s is not an object", e.ID)
			return
		}
		m, ok := v.ObjectValue().Get("message")
		if !ok {
			continue
		}
		raw, err := pi.Marshal(m)
		if err != nil {
			r.fail("wire", "transcript entry %s: %v", e.ID, err)
			return
		}
		lines = append(lines, string(raw))
	}
	if len(lines) == 0 {
		return
	}
	msgs, err := replay.DecodeTranscript(strings.Join(lines, "\n"))
	if err != nil {
		r.fail("wire", "final transcript does not decode: %v", err)
		return
	}
	for _, wn := range replay.Wires {
		body, err := replay.Project(msgs, replay.Target{Wire: wn, Provider: simProvider, Model: simModel}, replay.Options{})
		if errors.Is(err, replay.ErrNothingToSend) {
			continue
		}
		if !r.check(err == nil, "wire", "project the final transcript for %s: %v", wn, err) {
			return
		}
		err = wire.Validate(wn, body, wire.Options{Model: simModel})
		if !r.check(err == nil, "wire", "%s rejects the projected final transcript: %v\n%s", wn, err, body) {
			return
		}
	}
}

// checkForkMigrate (on a restored effect_pending lane): an idle-fork image
// copies no frame list or operation-owned value (I12), and a frame
// migration either maps every element keeping its seq or drops whole lists
// without touching operation state.
func (r *runner) checkForkMigrate() {
	ws, _, err := lane.ForkWrites(r.st, lane.ForkOptions{UnconfiguredLanes: true})
	if !r.check(err == nil, "invariant", "fork: %v", err) {
		return
	}
	for _, w := range ws {
		// session/fork.ts: the lane state is rebuilt empty
		if w.Namespace == lane.NSLaneState && !r.check(string(w.Value) == `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
			"invariant", "idle fork copies lane state %s", w.Value) {
			return
		}
		if !r.check(w.Kind != store.WriteList && !strings.HasPrefix(w.Namespace, "pi.pending.") && !strings.HasPrefix(w.Namespace, "pi.op."),
			"invariant", "I12: idle fork copies %s %s/%s", w.Kind, w.Namespace, w.Key) {
			return
		}
	}
	var image []store.CommittedWrite
	lists := map[string]int{}
	for _, ns := range laneNamespaces {
		vs, _ := r.ref.ScanValues(ns, "")
		for _, v := range vs {
			image = append(image, store.CommittedWrite{Write: store.SetValueRaw(v.Address, v.Value), Seq: v.Seq})
		}
	}
	for _, k := range r.sortedListKeys() {
		a := r.listKeys[k]
		els, _ := r.ref.ReadList(a, store.ReadOptions{Limit: 10_000})
		for _, e := range els {
			image = append(image, store.CommittedWrite{Write: store.AppendListRaw(a, e.Value), Seq: e.Seq})
		}
		if len(els) > 0 {
			lists[a.Key] = len(els)
		}
	}
	out, dropped, err := lane.MigrateFrames(image, func(raw json.RawMessage) (json.RawMessage, bool) { return raw, true })
	if !r.check(err == nil && len(dropped) == 0 && len(out) == len(image), "invariant", "identity migration changed the image: %v, dropped %v", err, dropped) {
		return
	}
	for i := range out {
		if !r.check(out[i].Seq == image[i].Seq && bytes.Equal(out[i].Value, image[i].Value), "invariant", "identity migration changed element %d", i) {
			return
		}
	}
	out, dropped, err = lane.MigrateFrames(image, nil)
	if !r.check(err == nil && len(dropped) == len(lists), "invariant", "discarding migration dropped %v of %v: %v", dropped, lists, err) {
		return
	}
	for _, w := range out {
		if !r.check(w.Kind != store.WriteList || w.Namespace != lane.NSAssistantFrame, "invariant", "discarding migration kept a frame of %s", w.Key) {
			return
		}
	}
	r.check(len(out) == len(image)-sum(lists), "invariant", "discarding migration touched non-frame records")
	r.race("fork-migration", "checked")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
