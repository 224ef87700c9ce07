package lane

import (
	"fmt"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// Limits are the configured model's facts a generation intent records
// (generation.ts publishGenerationIntent: intendedOutputLimit is the model's
// maxTokens, contextWindow its contextWindow).
type Limits struct {
	MaxTokens     float64
	ContextWindow float64
}

// fillStateValues states the values of the operation-meta, operation-state
// and lane-state sets in the transaction the input just stated, from the state the input
// left: a lifecycle transaction sets each at most once, to what it is after
// the transaction. An input defers it, so it runs after the input's state
// changes; a transaction stated by an earlier input is left alone.
func (m *Model) fillStateValues() {
	if !m.txFresh {
		return
	}
	m.txFresh = false
	for i, w := range m.tx {
		if w.Kind != "value" || w.Op != "set" || w.Value != "" {
			continue
		}
		b, ok := m.jsonBuf[:0], false
		switch w.Namespace {
		case nsOpState:
			b, ok = m.appendOpStateJSON(b, w.Key)
		case nsOpMeta:
			b, ok = m.appendMetaJSON(b, w.Key)
		case nsLaneState:
			b, ok = m.appendLaneStateJSON(b), true
		case nsResult:
			b, ok = m.appendResultJSON(b, w.Key)
		}
		if ok {
			m.tx[i].Value = string(b)
		}
		m.jsonBuf = b[:0]
	}
}

// checkpointResume is a checkpoint's continuation and trigger.
func (info *opInfo) checkpointResume(o Op) (pi.JSONValue, string) {
	if o.Continuation == NeedAssistant { // checkpoint.ts startRun: triggered by the prompt
		// (tool-placement.ts commitPlacement: by the batch's last result)
		return object("kind", pi.StringValue(NeedAssistant), "overflowRecoveryUsed", pi.BoolValue(false)), info.generationTrigger()
	}
	if info.afterTools { // tool-placement.ts commitPlacement: every call terminates
		return object("kind", pi.StringValue(MayFinish), "includeFinalAssistant", pi.BoolValue(false)), info.generationTrigger()
	}
	// response.ts publishResponse: triggered by the settled response
	return object("kind", pi.StringValue(MayFinish), "includeFinalAssistant", pi.BoolValue(true)), o.LatestAssistantEntryID
}

// object builds a JS object from alternating keys and values, in order.
func object(kv ...any) pi.JSONValue {
	o := pi.NewObject()
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1].(pi.JSONValue))
	}
	return pi.ObjectValue(o)
}

// PlanToolResults names the result entry ids the lane minted for the tool
// calls of the response about to settle, in call order (response.ts
// publishResponse mints one per call). The batch's turn is the settling
// step's: the generation's step, or "<step>:poll:<n>" for a deferred poll.
// No ids: the response plans no calls, and nothing is recorded.
func (m *Model) PlanToolResults(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	op, o, ok := m.current()
	if !ok || !o.effectPending() {
		return fmt.Errorf("model/lane: tool result ids %v named with no response pending", ids)
	}
	if err := m.fresh(ids...); err != nil {
		return fmt.Errorf("model/lane: tool result ids: %w", err)
	}
	info := m.ops[op]
	turn := info.run.StepID
	if o.At == AtDeferredEffect {
		turn += ":poll:" + strconv.Itoa(o.Poll)
	}
	info.tools = toolBatch{turn: turn, ids: append([]string(nil), ids...)}
	return nil
}
