package lane

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// reduceStored is what pi's recovery (runtime/drive/recovery.ts) and
// captureLaneSnapshot do with a committed frame list: pi-ai's
// reduceAssistantMessageFrames over the stored values as they are
// (frames.ReduceValues: unknown frame types are skipped, members are not
// checked). Only an error pi-ai itself throws is returned; a frame pi's
// types would reject is never a reason to fault the lane.
//
// The lane carries typed messages, so the reduction is read back with
// pi.DecodeLiveMessage (members pi's types do not name are dropped). A
// reduction no typed message can hold (a text left undefined by a text_end
// without content, a partial without a model, a start frame whose partial
// is a string, a number, true or an array) is returned as raw, the value
// pi-ai returned, with a nil typed message: recovery commits and emits it as
// pi does (untypedPartial), Snapshot and Capture show it as
// StreamingRaw, and frames.Reduce (the strict reading) names the frame at
// fault. A falsy partial (null, false, 0, "") reduces to undefined in
// pi-ai, as if no frame had been committed.
func reduceStored(fs []pi.JSONValue) (typed *pi.AssistantMessage, raw pi.JSONValue, err error) {
	v, err := frames.ReduceValues(fs)
	if err != nil || v.IsUndefined() {
		return nil, pi.JSONValue{}, err
	}
	m, err := pi.DecodeLiveMessage(v, "$")
	if err != nil {
		return nil, v, nil
	}
	return m, pi.JSONValue{}, nil
}

// jsSpread is the object JavaScript's `{ ...v }` builds from a JSON value:
// an object's own members in order, an array's elements and a string's
// UTF-16 code units under their indexes, nothing for a number or a boolean.
func jsSpread(v pi.JSONValue) *pi.JSONObject {
	switch v.Kind() {
	case pi.Object:
		return pi.DeepClone(v).ObjectValue()
	case pi.Array:
		out := pi.NewObject()
		for i, x := range v.Array() {
			out.Set(itoa(i), pi.DeepClone(x))
		}
		return out
	case pi.String:
		out := pi.NewObject()
		for i, u := range pi.ToUTF16(v.Str()) {
			out.Set(itoa(i), pi.StringValue(pi.FromUTF16([]uint16{u})))
		}
		return out
	}
	return pi.NewObject()
}

// reshape rewrites a synthetic response's marshalled message before it is
// committed (see settle).
type reshape struct {
	rewrite func([]byte) ([]byte, error)
	// untyped: the rewritten message is one the typed vocabulary cannot
	// hold; the settlement's events carry it as Event.Raw.
	untyped bool
}

// untypedPartial is recovery.ts's interruptedAssistantMessage for a partial
// the typed vocabulary cannot hold: { ...partial, usage, stopReason,
// errorMessage } (and normalizeAborted's spread under a cancel), committed
// as pi commits it. The settled fields come from the typed stand-in the
// lane classified (its marshalled JSON, committed); the rest is the partial
// pi-ai reduced, in its key order. A frame-budget diagnostic (frameproof's
// option) is carried over too.
func untypedPartial(partial pi.JSONValue) func([]byte) ([]byte, error) {
	return func(committed []byte) ([]byte, error) {
		v, err := pi.ParseJSON(string(committed))
		if err != nil || v.Kind() != pi.Object {
			return nil, fmt.Errorf("lane: synthetic message is not a JSON object: %s", committed)
		}
		out := jsSpread(partial)
		for _, k := range []string{"usage", "stopReason", "errorMessage", "diagnostics"} {
			if x, ok := v.ObjectValue().Get(k); ok {
				out.Set(k, x)
			}
		}
		return pi.ObjectValue(out).AppendJSON(nil), nil
	}
}
