package lane

import (
	"github.com/frameproof/frameproof/impl/pi"
)

// Leaf is an operation state's `at` discriminator. Only the leaves that
// assistant durability touches are driven here; the summary leaf exists so
// that overflow classification can hand over (pi-durability-facts.md §4).
type Leaf string

// The leaves this package drives.
const (
	LeafStarting               Leaf = "starting"
	LeafAssistantReady         Leaf = "assistant.ready"
	LeafAssistantEffectPending Leaf = "assistant.effect_pending"
	LeafAssistantRetryWait     Leaf = "assistant.retry_wait"
	LeafDeferredSuspended      Leaf = "deferred.suspended"
	LeafDeferredEffectPending  Leaf = "deferred.effect_pending"
	LeafCheckpoint             Leaf = "checkpoint"
	LeafTools                  Leaf = "tools"
	LeafSummaryDeciding        Leaf = "summary.deciding"
)

// IsEffectPending reports whether at is one of the two leaves that own an
// assistant frame list.
func (at Leaf) IsEffectPending() bool {
	return at == LeafAssistantEffectPending || at == LeafDeferredEffectPending
}

// Control is the durable cancellation control of an operation.
type Control struct {
	CancelRequested bool
	RequestedAt     float64 // ms; meaningful when CancelRequested
}

// ModelRef names a configured model.
type ModelRef struct{ Provider, ModelID string }

// Configuration is a lane configuration snapshot:
// {model{provider,modelId},thinkingLevel,activeToolNames}.
type Configuration struct {
	Model           ModelRef
	ThinkingLevel   string
	ActiveToolNames []string
}

// RetryPolicy is {maxAttempts, baseDelayMs, maxAgentDelayMs?}.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelayMs float64
	// MaxAgentDelayMs caps each retry delay (pi-ai's policy.maxAgentDelayMs);
	// nil means pi-ai's default, 60000 ms, and is not written to the state.
	MaxAgentDelayMs *float64
}

// GenerationContext is assistant generation's durable context.
type GenerationContext struct {
	StepID               string
	TriggerEntryID       string
	Configuration        Configuration
	StreamOptions        pi.JSONValue // opaque object
	RetryPolicy          RetryPolicy
	OverflowRecoveryUsed bool
}

// The kinds of a checkpoint's continuation (session/types.ts
// CheckpointOperation): need_assistant asks for the next assistant step
// (runCheckpoint mints it), may_finish lets the run complete.
const (
	ContinueNeedAssistant = "need_assistant"
	ContinueMayFinish     = "may_finish"
)

// Continuation is a checkpoint's continuation: {kind:"need_assistant",
// overflowRecoveryUsed} or {kind:"may_finish", includeFinalAssistant}.
type Continuation struct {
	Kind                  string
	OverflowRecoveryUsed  bool // need_assistant
	IncludeFinalAssistant bool // may_finish
}

func (c Continuation) value() pi.JSONValue {
	if c.Kind == ContinueNeedAssistant {
		return jobj("kind", c.Kind, "overflowRecoveryUsed", c.OverflowRecoveryUsed)
	}
	return jobj("kind", c.Kind, "includeFinalAssistant", c.IncludeFinalAssistant)
}

// The statuses of a tool call in a batch (session/types.ts ToolCall).
const (
	CallPlanned       = "planned"
	CallEffectPending = "effect_pending"
	CallOutcomeReady  = "outcome_ready"
	CallCompleted     = "completed"
)

// PlannedCall is one tool call of a `tools` leaf: {status, sourceIndex,
// resultEntryId} plus replay (effect_pending) or terminate (outcome_ready,
// completed), in that key order (runtime/drive/tools.ts literals).
type PlannedCall struct {
	Status        string // "" reads as planned
	SourceIndex   int
	ResultEntryID string
	Replay        string // effect_pending: "never" | "safe"
	Terminate     bool   // outcome_ready, completed
}

func (c PlannedCall) status() string {
	if c.Status == "" {
		return CallPlanned
	}
	return c.Status
}

func (c PlannedCall) value() pi.JSONValue {
	kv := []any{"status", c.status(), "sourceIndex", c.SourceIndex, "resultEntryId", c.ResultEntryID}
	switch c.status() {
	case CallEffectPending:
		kv = append(kv, "replay", c.Replay)
	case CallOutcomeReady, CallCompleted:
		kv = append(kv, "terminate", c.Terminate)
	}
	return jobj(kv...)
}

func decodeCall(r *reader, v pi.JSONValue) PlannedCall {
	c := PlannedCall{Status: r.str(v, "status"), SourceIndex: int(r.num(v, "sourceIndex")), ResultEntryID: r.str(v, "resultEntryId")}
	switch c.Status {
	case CallPlanned:
	case CallEffectPending:
		c.Replay = r.str(v, "replay")
	case CallOutcomeReady, CallCompleted:
		c.Terminate = r.boolean(v, "terminate")
	default:
		r.fail("unsupported tool call status %q", c.Status)
	}
	return c
}

// OpState is one operation state leaf. Scope fields (Control, Settings,
// LatestAssistantEntryID) are on every leaf; the rest depends on At.
type OpState struct {
	At                     Leaf
	Control                Control
	Settings               pi.JSONValue // opaque object
	LatestAssistantEntryID *string

	// assistant.*
	Gen                 *GenerationContext
	Attempt             int     // effect_pending
	NextAttempt         int     // ready, retry_wait
	NotBefore           float64 // retry_wait
	ErrorMessage        string  // retry_wait
	IntendedOutputLimit float64 // effect_pending
	ContextWindow       float64 // effect_pending

	// assistant/deferred effect_pending
	ResponseEntryID string
	UsageID         string

	// deferred.*
	StepID        string
	SourceEntryID string
	Poll          int
	Configuration *Configuration
	StreamOptions pi.JSONValue

	// checkpoint; on assistant.ready, the checkpoint's pair the ready
	// state carries (Continuation.Kind "" when it carries none: a ready
	// state after a retry wait)
	Continuation   Continuation
	TriggerEntryID string

	// tools
	BatchAssistantEntryID string
	BatchTurnID           string
	Calls                 []PlannedCall

	// summary.deciding
	Task pi.JSONValue
}

// Clone copies s (slices included; JSON values are immutable).
func (s *OpState) Clone() *OpState {
	if s == nil {
		return nil
	}
	c := *s
	if s.Gen != nil {
		g := *s.Gen
		g.Configuration.ActiveToolNames = append([]string(nil), g.Configuration.ActiveToolNames...)
		c.Gen = &g
	}
	if s.Configuration != nil {
		cfg := *s.Configuration
		cfg.ActiveToolNames = append([]string(nil), cfg.ActiveToolNames...)
		c.Configuration = &cfg
	}
	c.Calls = append([]PlannedCall(nil), s.Calls...)
	return &c
}

// carriesCheckpoint reports an assistant.ready state that keeps the
// checkpoint's continuation and triggerEntryId: runtime/drive/boundary.ts
// assistantReadyAtBoundary builds the ready state as {...scope, at,
// generationContext, nextAttempt} and checkpoint.ts runCheckpoint passes
// the whole checkpoint state as scope, so its members stay where the
// checkpoint had them (after at, before generationContext).
func (s *OpState) carriesCheckpoint() bool {
	return s.At == LeafAssistantReady && s.Continuation.Kind != ""
}

// scope returns a new leaf carrying only s's scope (operationScopeOf).
func (s *OpState) scope(at Leaf) *OpState {
	return &OpState{At: at, Control: s.Control, Settings: s.Settings, LatestAssistantEntryID: s.LatestAssistantEntryID}
}

func (c Control) value() pi.JSONValue {
	if c.CancelRequested {
		return jobj("status", "cancel_requested", "requestedAt", c.RequestedAt)
	}
	return jobj("status", "running")
}

func (m ModelRef) value() pi.JSONValue { return jobj("provider", m.Provider, "modelId", m.ModelID) }

func (c Configuration) value() pi.JSONValue {
	names := c.ActiveToolNames
	if names == nil {
		names = []string{}
	}
	return jobj("model", c.Model.value(), "thinkingLevel", c.ThinkingLevel, "activeToolNames", names)
}

func objOrEmpty(v pi.JSONValue) pi.JSONValue {
	if v.IsUndefined() {
		return pi.EmptyObject()
	}
	return v
}

func (p RetryPolicy) value() pi.JSONValue {
	var limit any // nil: omitted, as JSON.stringify omits an undefined member
	if p.MaxAgentDelayMs != nil {
		limit = *p.MaxAgentDelayMs
	}
	return jobj("maxAttempts", p.MaxAttempts, "baseDelayMs", p.BaseDelayMs, "maxAgentDelayMs", limit)
}

func (g GenerationContext) value() pi.JSONValue {
	return jobj("stepId", g.StepID, "triggerEntryId", g.TriggerEntryID,
		"configuration", g.Configuration.value(), "streamOptions", objOrEmpty(g.StreamOptions),
		"retryPolicy", g.RetryPolicy.value(),
		"overflowRecoveryUsed", g.OverflowRecoveryUsed)
}

// Value is the state as pi stores it: scope first ({control, settings,
// latestAssistantEntryId}, operationScopeOf), then `at`, then the leaf's
// payload in the order pi's object literals build it.
func (s *OpState) Value() pi.JSONValue {
	if s.At == LeafStarting {
		// runtime/lane.ts acceptRun's literal: `at` before the scope
		return jobj("at", string(s.At), "control", s.Control.value(), "settings", objOrEmpty(s.Settings),
			"latestAssistantEntryId", s.LatestAssistantEntryID)
	}
	kv := []any{"control", s.Control.value(), "settings", objOrEmpty(s.Settings),
		"latestAssistantEntryId", s.LatestAssistantEntryID, "at", string(s.At)}
	switch s.At {
	case LeafAssistantReady:
		if s.carriesCheckpoint() {
			kv = append(kv, "continuation", s.Continuation.value(), "triggerEntryId", s.TriggerEntryID)
		}
		kv = append(kv, "generationContext", s.Gen.value(), "nextAttempt", s.NextAttempt)
	case LeafAssistantEffectPending:
		kv = append(kv, "generationContext", s.Gen.value(), "attempt", s.Attempt,
			"responseEntryId", s.ResponseEntryID, "usageId", s.UsageID,
			"intendedOutputLimit", s.IntendedOutputLimit, "contextWindow", s.ContextWindow)
	case LeafAssistantRetryWait:
		kv = append(kv, "generationContext", s.Gen.value(), "nextAttempt", s.NextAttempt,
			"notBefore", s.NotBefore, "errorMessage", s.ErrorMessage)
	case LeafDeferredSuspended:
		kv = append(kv, "stepId", s.StepID, "sourceEntryId", s.SourceEntryID, "poll", s.Poll,
			"configuration", s.Configuration.value(), "streamOptions", objOrEmpty(s.StreamOptions))
	case LeafDeferredEffectPending:
		// publishPollIntent's literal order: ids before configuration.
		kv = append(kv, "stepId", s.StepID, "sourceEntryId", s.SourceEntryID, "poll", s.Poll,
			"responseEntryId", s.ResponseEntryID, "usageId", s.UsageID,
			"configuration", s.Configuration.value(), "streamOptions", objOrEmpty(s.StreamOptions))
	case LeafCheckpoint:
		kv = append(kv, "continuation", s.Continuation.value(), "triggerEntryId", s.TriggerEntryID)
	case LeafTools:
		calls := make([]pi.JSONValue, len(s.Calls))
		for i, c := range s.Calls {
			calls[i] = c.value()
		}
		kv = append(kv, "batch", jobj("assistantEntryId", s.BatchAssistantEntryID,
			"configuration", s.Configuration.value(), "turnId", s.BatchTurnID, "calls", pi.ArrayValue(calls)))
	case LeafSummaryDeciding:
		kv = append(kv, "task", s.Task)
	}
	return jobj(kv...)
}

// MarshalState returns the state's JSON.stringify bytes: Value's, written
// without building the value (appendState), into one buffer (the states
// the simulator writes are 100 to 830 bytes).
func MarshalState(s *OpState) []byte { return appendState(make([]byte, 0, 896), s) }

// DecodeState parses a stored operation state.
func DecodeState(raw []byte) (*OpState, error) {
	src := string(raw)
	if s, ok := decodeWritten(src); ok {
		return s, nil
	}
	return decodeTree(src)
}

// decodeTree decodes a stored operation state from its parsed tree.
func decodeTree(src string) (*OpState, error) {
	v, err := pi.ParseJSON(src)
	if err != nil {
		return nil, err
	}
	r := &reader{path: "state"}
	s := &OpState{At: Leaf(r.str(v, "at"))}
	ctl := r.get(v, "control")
	if r.str(ctl, "status") == "cancel_requested" {
		s.Control = Control{CancelRequested: true, RequestedAt: r.num(ctl, "requestedAt")}
	}
	s.Settings = r.get(v, "settings")
	s.LatestAssistantEntryID = r.optStr(v, "latestAssistantEntryId")
	decGen := func() *GenerationContext {
		g := r.get(v, "generationContext")
		rp := r.get(g, "retryPolicy")
		return &GenerationContext{
			StepID: r.str(g, "stepId"), TriggerEntryID: r.str(g, "triggerEntryId"),
			Configuration: decConfig(r, r.get(g, "configuration")), StreamOptions: r.get(g, "streamOptions"),
			RetryPolicy: RetryPolicy{MaxAttempts: int(r.num(rp, "maxAttempts")), BaseDelayMs: r.num(rp, "baseDelayMs"),
				MaxAgentDelayMs: r.optNum(rp, "maxAgentDelayMs")},
			OverflowRecoveryUsed: r.boolean(g, "overflowRecoveryUsed"),
		}
	}
	decContinuation := func() {
		c := r.get(v, "continuation")
		s.Continuation.Kind = r.str(c, "kind")
		switch s.Continuation.Kind {
		case ContinueNeedAssistant:
			s.Continuation.OverflowRecoveryUsed = r.boolean(c, "overflowRecoveryUsed")
		case ContinueMayFinish:
			s.Continuation.IncludeFinalAssistant = r.boolean(c, "includeFinalAssistant")
		default:
			r.fail("unsupported checkpoint continuation %q", s.Continuation.Kind)
		}
		s.TriggerEntryID = r.str(v, "triggerEntryId")
	}
	switch s.At {
	case LeafAssistantReady:
		if !r.get(v, "continuation").IsUndefined() { // carried from the checkpoint (carriesCheckpoint)
			decContinuation()
		}
		s.Gen, s.NextAttempt = decGen(), int(r.num(v, "nextAttempt"))
	case LeafAssistantEffectPending:
		s.Gen, s.Attempt = decGen(), int(r.num(v, "attempt"))
		s.ResponseEntryID, s.UsageID = r.str(v, "responseEntryId"), r.str(v, "usageId")
		s.IntendedOutputLimit, s.ContextWindow = r.num(v, "intendedOutputLimit"), r.num(v, "contextWindow")
	case LeafAssistantRetryWait:
		s.Gen, s.NextAttempt = decGen(), int(r.num(v, "nextAttempt"))
		s.NotBefore, s.ErrorMessage = r.num(v, "notBefore"), r.str(v, "errorMessage")
	case LeafDeferredSuspended, LeafDeferredEffectPending:
		s.StepID, s.SourceEntryID, s.Poll = r.str(v, "stepId"), r.str(v, "sourceEntryId"), int(r.num(v, "poll"))
		cfg := decConfig(r, r.get(v, "configuration"))
		s.Configuration, s.StreamOptions = &cfg, r.get(v, "streamOptions")
		if s.At == LeafDeferredEffectPending {
			s.ResponseEntryID, s.UsageID = r.str(v, "responseEntryId"), r.str(v, "usageId")
		}
	case LeafStarting:
	case LeafCheckpoint:
		decContinuation()
	case LeafTools:
		b := r.get(v, "batch")
		s.BatchAssistantEntryID, s.BatchTurnID = r.str(b, "assistantEntryId"), r.str(b, "turnId")
		cfg := decConfig(r, r.get(b, "configuration"))
		s.Configuration = &cfg
		for _, c := range r.get(b, "calls").Array() {
			s.Calls = append(s.Calls, decodeCall(r, c))
		}
	case LeafSummaryDeciding:
		s.Task = r.get(v, "task")
	default:
		r.fail("unsupported leaf %q", s.At)
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

func decConfig(r *reader, v pi.JSONValue) Configuration {
	m := r.get(v, "model")
	return Configuration{
		Model:         ModelRef{Provider: r.str(m, "provider"), ModelID: r.str(m, "modelId")},
		ThinkingLevel: r.str(v, "thinkingLevel"), ActiveToolNames: r.strs(v, "activeToolNames"),
	}
}
