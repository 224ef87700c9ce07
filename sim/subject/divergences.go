package subject

import (
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
)

// Decision is how a difference between a subject and model/lane was
// decided.
type Decision string

// Decisions (DESIGN.md "Subjects": pi is right unless the difference is a
// pi finding with a reproduction).
const (
	// DecidedPiBug: pi's behaviour is a bug, recorded in docs/PI-FINDINGS.md;
	// the runner expects pi's behaviour on the pi subject.
	DecidedPiBug Decision = "pi-finding"
	// DecidedFrameproofBug: model/lane is wrong; the runner tolerates
	// pi's behaviour until the model is fixed.
	DecidedFrameproofBug Decision = "frameproof-bug"
	// DecidedOption: a deliberate option of frameproof's; pi's behaviour is
	// the default.
	DecidedOption Decision = "option"
)

// DivergenceID names a decided difference.
type DivergenceID string

// The decided differences: none is open. The two the pi subject found
// first are fixed in frameproof, which now follows pi running: the
// assistant.ready state carries the checkpoint's continuation and
// triggerEntryId (impl/lane boundary.go, model/lane; docs/PI-FINDINGS.md
// keeps the reading that pi meant the scope), and a recovery's usage
// event is not recovery-tagged (pi's runtime/drive/response.ts
// publishResponse). The third, pi 0.85.1's uncapped retry delay
// (runtime/drive/retry.js retryDelay), is an option on both sides now —
// impl/lane's and model/lane's Config.DefaultMaxAgentDelayMs, +Inf at
// 0.85.1 — so the runner compares it exactly (runner.go newOracle's
// caller). A new difference gets a DivergenceID here and an entry in
// Divergences until it is fixed.

// Divergence is one decided difference and what the runner accepts for it.
type Divergence struct {
	ID       DivergenceID
	Decision Decision
	What     string
	// accepts says whether the subject's write g stands for the model's w
	// under this difference (both agree on address).
	accepts func(g, w ml.TXWrite) bool
	// event maps a model event to what the subject emits under this
	// difference ("" : not this one).
	event func(model string) string
}

// Divergences are every decided difference, in the order they were found.
var Divergences = []Divergence{}

// eventAs is the model's event as the subject emits it under the decided
// differences, and which one applied ("" none).
func eventAs(model, subject string) (string, DivergenceID) {
	if model == subject {
		return model, ""
	}
	for _, d := range Divergences {
		if d.event != nil {
			if e := d.event(model); e != "" && e == subject {
				return e, d.ID
			}
		}
	}
	return model, ""
}

// withoutKeys is the canonical JSON of the object value with the keys
// removed, when its "at" is at ("" otherwise).
func withoutKeys(value, at string, keys ...string) string {
	v, err := pi.ParseJSON(value)
	if err != nil || v.Kind() != pi.Object || v.Prop("at").Str() != at {
		return ""
	}
	o := v.ObjectValue()
	for _, k := range keys {
		o.Delete(k)
	}
	return ml.Canonical(pi.ObjectValue(o).AppendJSON(nil))
}

// tolerated reports the divergence that accepts g for w, if any.
func tolerated(g, w ml.TXWrite) (DivergenceID, bool) {
	for _, d := range Divergences {
		if d.accepts != nil && d.accepts(g, w) {
			return d.ID, true
		}
	}
	return "", false
}
