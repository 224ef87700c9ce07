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

// The decided differences.
const (
	// DivReadyCarriesCheckpoint: pi's assistantReadyAtBoundary spreads
	// its `scope` parameter, and every caller passes the whole current
	// operation state (runtime/drive/checkpoint.ts runCheckpoint,
	// boundary.ts, structural.ts), so the assistant.ready state keeps the
	// checkpoint's continuation and triggerEntryId (and a summary's task).
	DivReadyCarriesCheckpoint DivergenceID = "ready-state-carries-checkpoint-fields"
	// DivUsageRecoveryTag: model/lane (and impl/lane with it) tag a
	// recovery settlement's usage event "recovery"; pi's
	// runtime/drive/response.ts publishResponse spreads the recovery
	// option into entry_added only, never into usage.
	DivUsageRecoveryTag DivergenceID = "usage-event-recovery-tag"
)

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
var Divergences = []Divergence{
	{ID: DivReadyCarriesCheckpoint, Decision: DecidedPiBug,
		What: "assistant.ready op state carries the checkpoint's continuation/triggerEntryId (pi's runtime/drive/boundary.ts assistantReadyAtBoundary is passed the whole state as its scope)",
		accepts: func(g, w ml.TXWrite) bool {
			return g.Namespace == nsOpState && withoutKeys(g.Value, "assistant.ready", "continuation", "triggerEntryId", "task") == w.Value
		}},
	{ID: DivUsageRecoveryTag, Decision: DecidedFrameproofBug,
		What: "model/lane emits usage(recovery) for a recovery settlement; pi's publishResponse emits usage without the recovery option (model/lane model.go Settle: m.emit(\"usage\", recovery))",
		event: func(model string) string {
			if model == "usage(recovery)" {
				return "usage"
			}
			return ""
		}},
}

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
