package subject

import (
	"math"

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

// The decided differences: one is open (RetryDelayUncapped, an option). The two the pi subject found
// first are fixed in frameproof, which now follows pi running: the
// assistant.ready state carries the checkpoint's continuation and
// triggerEntryId (impl/lane boundary.go, model/lane; docs/PI-FINDINGS.md
// keeps the reading that pi meant the scope), and a recovery's usage
// event is not recovery-tagged (pi's runtime/drive/response.ts
// publishResponse). A new difference gets a DivergenceID here and an entry
// in Divergences until it is fixed.

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
	{ID: RetryDelayUncapped, Decision: DecidedOption,
		What: "pi 0.85.1 does not cap retry delays (runtime/drive/retry.ts retryDelay: baseDelayMs·2^(attempt−1)); " +
			"model/lane caps a policy naming no cap at pi-ai's 60000 ms (DEFAULT_MAX_AGENT_RETRY_DELAY_MS, as pi does from 0.87.1). " +
			"frameproof's option: impl/lane Config.DefaultMaxAgentDelayMs (+Inf is 0.85.1); model/lane has no such option yet, " +
			"so the runner accepts pi's uncapped notBefore exactly where the cap applied",
		accepts: uncappedRetryDelay},
}

// RetryDelayUncapped: pi 0.85.1's uncapped retry delay.
const RetryDelayUncapped DivergenceID = "retry-delay-uncapped"

// uncappedRetryDelay accepts pi 0.85.1's retry_wait state g for the
// model's w when they differ only in notBefore, g's stored policy names no
// cap, g's delay is pi 0.85.1's uncapped baseDelayMs·2^(attempt−1) past
// 60000 ms, and w's is the same moment plus 60000 ms.
func uncappedRetryDelay(g, w ml.TXWrite) bool {
	if g.Namespace != nsOpState || g.Kind != string(WriteValue) {
		return false
	}
	gv, err1 := pi.ParseJSON(g.Value)
	wv, err2 := pi.ParseJSON(w.Value)
	if err1 != nil || err2 != nil || gv.Prop("at").Str() != "assistant.retry_wait" {
		return false
	}
	policy := gv.Prop("generationContext").Prop("retryPolicy")
	if policy.Kind() != pi.Object || !policy.Prop("maxAgentDelayMs").IsUndefined() {
		return false
	}
	attempt := gv.Prop("nextAttempt").Number() - 1
	delay := policy.Prop("baseDelayMs").Number() * math.Pow(2, math.Max(0, attempt-1))
	now := gv.Prop("notBefore").Number() - delay
	const piAICap = 60000
	if delay <= piAICap || wv.Prop("notBefore").Number() != now+piAICap {
		return false
	}
	return withoutKeys(g.Value, "assistant.retry_wait", "notBefore") == withoutKeys(w.Value, "assistant.retry_wait", "notBefore")
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
