package lane

import (
	"math"
	"reflect"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

var testLeaves = []Leaf{LeafStarting, LeafAssistantReady, LeafAssistantEffectPending, LeafAssistantRetryWait,
	LeafDeferredSuspended, LeafDeferredEffectPending, LeafCheckpoint, LeafTools, LeafSummaryDeciding, "other"}

func drawText(t *rapid.T, label string) string {
	return rapid.OneOf(rapid.SampledFrom([]string{"", "a", "op-1", "é\"\\\n\u2028<>&", "\x00\x1f"}), rapid.String()).Draw(t, label)
}

func drawNum(t *rapid.T, label string) float64 {
	return rapid.OneOf(rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e21, 1e-7, 123456789.125,
		math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}), rapid.Float64()).Draw(t, label)
}

func drawOpaque(t *rapid.T, label string) pi.JSONValue {
	s := rapid.SampledFrom([]string{"", "{}", `{"a":1,"b":[true,null,"x"]}`, `{"2":1,"1":{"z":"é"}}`, "null", `"s"`, "[1,2]"}).Draw(t, label)
	if s == "" {
		return pi.JSONValue{}
	}
	v, err := pi.ParseJSON(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func drawConfig(t *rapid.T) Configuration {
	var names []string
	if rapid.Bool().Draw(t, "namesNil") == false {
		names = rapid.SliceOfN(rapid.StringMatching(`[a-z"\\]{0,4}`), 0, 3).Draw(t, "names")
	}
	return Configuration{Model: ModelRef{Provider: drawText(t, "provider"), ModelID: drawText(t, "modelId")},
		ThinkingLevel: drawText(t, "thinking"), ActiveToolNames: names}
}

func drawState(t *rapid.T) *OpState {
	s := &OpState{At: rapid.SampledFrom(testLeaves).Draw(t, "at")}
	if rapid.Bool().Draw(t, "cancel") {
		s.Control = Control{CancelRequested: true, RequestedAt: drawNum(t, "requestedAt")}
	}
	s.Settings = drawOpaque(t, "settings")
	if rapid.Bool().Draw(t, "latest") {
		id := drawText(t, "latestId")
		s.LatestAssistantEntryID = &id
	}
	var limit *float64
	if rapid.Bool().Draw(t, "limit") {
		n := drawNum(t, "limitMs")
		limit = &n
	}
	s.Gen = &GenerationContext{StepID: drawText(t, "step"), TriggerEntryID: drawText(t, "trigger"), Configuration: drawConfig(t),
		StreamOptions:        drawOpaque(t, "streamOptions"),
		RetryPolicy:          RetryPolicy{MaxAttempts: rapid.IntRange(-3, 1<<40).Draw(t, "max"), BaseDelayMs: drawNum(t, "base"), MaxAgentDelayMs: limit},
		OverflowRecoveryUsed: rapid.Bool().Draw(t, "overflow")}
	s.Attempt, s.NextAttempt, s.Poll = rapid.Int().Draw(t, "attempt"), rapid.Int().Draw(t, "next"), rapid.Int().Draw(t, "poll")
	s.NotBefore, s.IntendedOutputLimit, s.ContextWindow = drawNum(t, "notBefore"), drawNum(t, "limitOut"), drawNum(t, "window")
	s.ErrorMessage, s.ResponseEntryID, s.UsageID = drawText(t, "err"), drawText(t, "resp"), drawText(t, "usage")
	s.StepID, s.SourceEntryID, s.TriggerEntryID = drawText(t, "stepId"), drawText(t, "source"), drawText(t, "triggerId")
	cfg := drawConfig(t)
	s.Configuration, s.StreamOptions = &cfg, drawOpaque(t, "deferredOptions")
	s.Continuation = Continuation{Kind: rapid.SampledFrom([]string{ContinueNeedAssistant, ContinueMayFinish, "x", ""}).Draw(t, "kind"),
		OverflowRecoveryUsed: rapid.Bool().Draw(t, "cOverflow"), IncludeFinalAssistant: rapid.Bool().Draw(t, "final")}
	s.BatchAssistantEntryID, s.BatchTurnID = drawText(t, "batchEntry"), drawText(t, "turn")
	for i, n := 0, rapid.IntRange(0, 3).Draw(t, "calls"); i < n; i++ {
		s.Calls = append(s.Calls, PlannedCall{Status: rapid.SampledFrom([]string{"", CallPlanned, CallEffectPending, CallOutcomeReady, CallCompleted, "odd"}).Draw(t, "status"),
			SourceIndex: rapid.Int().Draw(t, "src"), ResultEntryID: drawText(t, "result"), Replay: drawText(t, "replay"), Terminate: rapid.Bool().Draw(t, "terminate")})
	}
	s.Task = drawOpaque(t, "task")
	return s
}

// MarshalState writes exactly the bytes of the state's value (Value, the
// reference built member by member), for every leaf and every member.
func TestAppendStateIsValueJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := drawState(t)
		want := string(s.Value().AppendJSON(nil))
		if got := string(MarshalState(s)); got != want {
			t.Fatalf("MarshalState:\n got %s\nwant %s", got, want)
		}
		if got := string(appendState([]byte("xy"), s)); got != "xy"+want {
			t.Fatalf("appendState after a prefix: %s", got)
		}
	})
}

// drawSimpleState is drawState with the strings and numbers decodeWritten
// reads itself, so that its fast path answers.
func drawSimpleState(t *rapid.T) *OpState {
	s := drawState(t)
	id := func(label string) string { return rapid.StringMatching(`[a-zA-Z0-9_.:-]{0,6}`).Draw(t, label) }
	n := func(label string) float64 {
		return float64(rapid.Int64Range(-999999999999999, 999999999999999).Draw(t, label))
	}
	cfg := func() Configuration {
		c := Configuration{Model: ModelRef{Provider: id("p"), ModelID: id("m")}, ThinkingLevel: id("t")}
		for i, k := 0, rapid.IntRange(0, 3).Draw(t, "k"); i < k; i++ {
			c.ActiveToolNames = append(c.ActiveToolNames, id("name"))
		}
		return c
	}
	s.Control.RequestedAt = n("requestedAt")
	if s.LatestAssistantEntryID != nil {
		x := id("latest")
		s.LatestAssistantEntryID = &x
	}
	s.Gen.StepID, s.Gen.TriggerEntryID, s.Gen.Configuration = id("step"), id("trigger"), cfg()
	s.Gen.RetryPolicy.BaseDelayMs = n("base")
	if s.Gen.RetryPolicy.MaxAgentDelayMs != nil {
		x := n("limit")
		s.Gen.RetryPolicy.MaxAgentDelayMs = &x
	}
	s.NotBefore, s.IntendedOutputLimit, s.ContextWindow = n("notBefore"), n("out"), n("window")
	s.Attempt, s.NextAttempt, s.Poll = int(n("attempt")), int(n("next")), int(n("poll"))
	s.Gen.RetryPolicy.MaxAttempts = int(n("max"))
	s.ErrorMessage, s.ResponseEntryID, s.UsageID, s.StepID, s.SourceEntryID = id("e"), id("r"), id("u"), id("s"), id("src")
	s.TriggerEntryID, s.BatchAssistantEntryID, s.BatchTurnID = id("tr"), id("b"), id("turn")
	c := cfg()
	s.Configuration = &c
	for i := range s.Calls {
		s.Calls[i].ResultEntryID, s.Calls[i].Replay = id("res"), id("replay")
		s.Calls[i].SourceIndex = rapid.IntRange(-5, 1<<40).Draw(t, "src")
	}
	return s
}

// mutate edits the text a little: a byte changed, inserted or removed, or
// the text cut short.
func mutate(t *rapid.T, raw []byte) []byte {
	out := append([]byte(nil), raw...)
	for k := rapid.IntRange(0, 2).Draw(t, "edits"); k > 0 && len(out) > 0; k-- {
		i := rapid.IntRange(0, len(out)-1).Draw(t, "at")
		b := rapid.SampledFrom([]byte(" \"\\,:{}[]0-9.eantrufl\x01\xc3")).Draw(t, "byte")
		switch rapid.IntRange(0, 3).Draw(t, "how") {
		case 0:
			out[i] = b
		case 1:
			out = append(out[:i], append([]byte{b}, out[i:]...)...)
		case 2:
			out = append(out[:i], out[i+1:]...)
		default:
			out = out[:i]
		}
	}
	return out
}

// DecodeState's fast path decodes what it accepts to the state the tree
// decodes it to, on the bytes MarshalState writes and on edits of them; it
// accepts what MarshalState writes from simple strings and integers.
func TestDecodeWrittenIsDecodeState(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s *OpState
		if rapid.Bool().Draw(t, "simple") {
			s = drawSimpleState(t)
		} else {
			s = drawState(t)
		}
		raw := MarshalState(s)
		if rapid.Bool().Draw(t, "mutate") {
			raw = mutate(t, raw)
		}
		fast, ok := decodeWritten(string(raw))
		tree, err := decodeTree(string(raw))
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("fast path accepted %s, the tree fails: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, tree) {
			t.Fatalf("%s:\nfast %#v\ntree %#v", raw, fast, tree)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		s := drawSimpleState(t)
		if _, ok := decodeWritten(string(MarshalState(s))); !ok && acceptable(s) {
			t.Fatalf("fast path declined %s", MarshalState(s))
		}
	})
}

func hasOddCall(s *OpState) bool {
	for _, c := range s.Calls {
		if c.Status == "odd" {
			return true
		}
	}
	return false
}

// acceptable: a state of a leaf, continuation and call statuses that
// DecodeState knows.
func acceptable(s *OpState) bool {
	odd := s.Continuation.Kind == "x" || s.Continuation.Kind == ""
	return s.At != "other" && !(s.At == LeafCheckpoint && odd) && !(s.At == LeafAssistantReady && s.Continuation.Kind == "x") &&
		!(s.At == LeafTools && hasOddCall(s))
}

// The references: the records' object literals as jobj builds them.
func laneStateJobj(s LaneState) []byte {
	inbox := s.Inbox
	if inbox.IsUndefined() {
		inbox = pi.ArrayValue(nil)
	}
	return jobj("currentOperationId", s.CurrentOperationID, "lastOperationId", s.LastOperationID, "inbox", inbox).AppendJSON(nil)
}

func opMetaJobj(m OpMeta) []byte {
	intent := jobj("kind", m.Kind)
	if m.Kind == "run" {
		ids := m.PromptEntryIDs
		if ids == nil {
			ids = []string{}
		}
		intent = jobj("kind", m.Kind, "promptEntryIds", ids)
	}
	return jobj("operationId", m.OperationID, "lane", m.Lane, "sourceTipId", m.SourceTipID, "startedAt", m.StartedAt,
		"intent", intent).AppendJSON(nil)
}

func resultJobj(r ResultRecord) []byte {
	var e any
	if r.Error != nil {
		e = jobj("code", r.Error.Code, "message", r.Error.Message)
	}
	return jobj("operationId", r.OperationID, "kind", r.Kind, "status", r.Status, "error", e,
		"fromTipId", r.FromTipID, "tipId", r.TipID, "startedAt", r.StartedAt, "endedAt", r.EndedAt).AppendJSON(nil)
}

func drawOptText(t *rapid.T, label string) *string {
	if rapid.Bool().Draw(t, label+"Nil") {
		return nil
	}
	s := drawText(t, label)
	return &s
}

// LaneState, OpMeta and ResultRecord write the bytes of their jobj literals.
func TestRecordWritersAreJobj(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ls := LaneState{CurrentOperationID: drawOptText(t, "cur"), LastOperationID: drawOptText(t, "last"), Inbox: drawOpaque(t, "inbox")}
		if got, want := string(ls.raw()), string(laneStateJobj(ls)); got != want {
			t.Fatalf("lane state:\n got %s\nwant %s", got, want)
		}
		m := OpMeta{OperationID: drawText(t, "op"), Lane: drawText(t, "lane"), SourceTipID: drawOptText(t, "tip"), StartedAt: drawNum(t, "at"),
			Kind: rapid.SampledFrom([]string{"run", "other", ""}).Draw(t, "kind")}
		if !rapid.Bool().Draw(t, "idsNil") {
			m.PromptEntryIDs = rapid.SliceOfN(rapid.StringMatching(`[a-z"\\é]{0,3}`), 0, 3).Draw(t, "ids")
		}
		if got, want := string(m.raw()), string(opMetaJobj(m)); got != want {
			t.Fatalf("meta:\n got %s\nwant %s", got, want)
		}
		r := ResultRecord{OperationID: drawText(t, "rop"), Kind: drawText(t, "rkind"), Status: drawText(t, "status"),
			FromTipID: drawOptText(t, "from"), TipID: drawOptText(t, "rtip"), StartedAt: drawNum(t, "start"), EndedAt: drawNum(t, "end")}
		if rapid.Bool().Draw(t, "err") {
			r.Error = &OpError{Code: drawText(t, "code"), Message: drawText(t, "msg")}
		}
		if got, want := string(r.raw()), string(resultJobj(r)); got != want {
			t.Fatalf("result:\n got %s\nwant %s", got, want)
		}
	})
}

// decodeLaneConfig's fast path decodes what it accepts as the tree does,
// and accepts what Configuration.value writes from simple strings.
func TestDecodeLaneConfigFastPath(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var c Configuration
		if rapid.Bool().Draw(t, "simple") {
			c = drawSimpleState(t).Gen.Configuration
		} else {
			c = drawConfig(t)
		}
		raw := c.value().AppendJSON(nil)
		if rapid.Bool().Draw(t, "mutate") {
			raw = mutate(t, raw)
		}
		got, gotErr := decodeLaneConfig(raw)
		want, wantErr := decodeLaneConfigTree(string(raw))
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("%s: errors %v, tree %v", raw, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %#v\nwant %#v", raw, got, want)
		}
	})
	c := Configuration{Model: ModelRef{Provider: "p", ModelID: "m"}, ThinkingLevel: "off", ActiveToolNames: []string{"read", "bash"}}
	d := &stateDec{s: string(c.value().AppendJSON(nil))}
	d.config()
	if !d.end() {
		t.Fatal("the fast path declined a plain configuration")
	}
}

// An assistant.ready state keeps the checkpoint's continuation and
// triggerEntryId when it was made from one (runtime/drive/boundary.ts
// assistantReadyAtBoundary spreads its scope, the whole checkpoint state
// that checkpoint.ts runCheckpoint passes), and has neither when a retry
// wait made it (generation.ts runRetryWait builds it from
// operationScopeOf). Both decoders read either form back.
func TestReadyStateCarryRoundTrips(t *testing.T) {
	gen := &GenerationContext{StepID: "s1", TriggerEntryID: "u2", Configuration: Configuration{ActiveToolNames: []string{}},
		RetryPolicy: RetryPolicy{MaxAttempts: 4, BaseDelayMs: 1000}}
	carried := &OpState{At: LeafAssistantReady, Gen: gen, NextAttempt: 1,
		Continuation: Continuation{Kind: ContinueMayFinish, IncludeFinalAssistant: true}, TriggerEntryID: "a1"}
	plain := &OpState{At: LeafAssistantReady, Gen: gen, NextAttempt: 2}
	const genJSON = `"generationContext":{"stepId":"s1","triggerEntryId":"u2","configuration":{"model":{"provider":"","modelId":""},` +
		`"thinkingLevel":"","activeToolNames":[]},"streamOptions":{},"retryPolicy":{"maxAttempts":4,"baseDelayMs":1000},"overflowRecoveryUsed":false}`
	for _, c := range []struct {
		s    *OpState
		want string
	}{
		{carried, `{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":null,"at":"assistant.ready",` +
			`"continuation":{"kind":"may_finish","includeFinalAssistant":true},"triggerEntryId":"a1",` + genJSON + `,"nextAttempt":1}`},
		{plain, `{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":null,"at":"assistant.ready",` + genJSON + `,"nextAttempt":2}`},
	} {
		raw := string(MarshalState(c.s))
		if raw != c.want {
			t.Fatalf("MarshalState:\n got %s\nwant %s", raw, c.want)
		}
		fast, ok := decodeWritten(raw)
		if !ok {
			t.Fatalf("fast path declined %s", raw)
		}
		tree, err := decodeTree(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, got := range []*OpState{fast, tree} {
			if got.Continuation != c.s.Continuation || got.TriggerEntryID != c.s.TriggerEntryID {
				t.Fatalf("%s decoded to continuation %+v trigger %q", raw, got.Continuation, got.TriggerEntryID)
			}
			if string(MarshalState(got)) != raw {
				t.Fatalf("re-marshalled %s", MarshalState(got))
			}
		}
	}
}
