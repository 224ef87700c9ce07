package lane

import (
	"math"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// partialObserver is a stand-in observer for unit tests: the observed
// message is the latest partial (the real one is model/frames.Observer).
type partialObserver struct{ m *pi.AssistantMessage }

func (o *partialObserver) Observe(ev *pi.Event)          { o.m = ev.Partial }
func (o *partialObserver) Message() *pi.AssistantMessage { return o.m }

func newModel() *Model {
	return New(Config{Lane: "main", Now: func() float64 { return 1000 },
		NewObserver: func() Observer { return &partialObserver{} }})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func started(t *testing.T, maxAttempts int) *Model {
	return startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: maxAttempts, BaseDelayMs: 10})
}

// intended is a model whose run "op" stepped to its first generation and
// recorded the intent for response r1 (usage g1), not yet admitted.
func intended(t *testing.T, run Run) *Model {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", run))
	toReady(t, m, "s1")
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "generate" {
		t.Fatalf("step: %+v", e)
	}
	must(t, m.Intent("op", "r1", "g1", 1))
	return m
}

// toReady drives a started run through its start and checkpoint steps
// (checkpoint.ts startRun and runCheckpoint), minting step id stepID.
func toReady(t *testing.T, m *Model, stepID string) {
	t.Helper()
	for _, kind := range []string{"start", "checkpoint"} {
		e, err := m.Step(false)
		must(t, err)
		if e.Kind != kind {
			t.Fatalf("step: %+v, want %s", e, kind)
		}
		if kind == "checkpoint" {
			must(t, m.Checkpoint(stepID))
		}
		out, err := m.StepDone(true)
		must(t, err)
		if out != (Outcome{Kind: "progress"}) {
			t.Fatalf("%s step outcome: %+v", kind, out)
		}
	}
}

// startedWith is intended with the request admitted.
func startedWith(t *testing.T, run Run) *Model {
	m := intended(t, run)
	must(t, m.Admit())
	return m
}

func partial(text string) *pi.AssistantMessage {
	return &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: text}}, API: "a", Provider: "openai", Model: "gpt", StopReason: pi.StopPending}
}

// An orphan with no committed frame settles as the empty api:"unknown"
// error under the reserved ids, with zero usage and W, then retries.
func TestRecoveryWithoutFrames(t *testing.T) {
	m := started(t, 2)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.FrameEnqueued("r1", 0, pi.EventStart, []byte(`{"type":"start"}`)))
	m.Crash() // the frame never committed
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "recover" {
		t.Fatalf("orphan step: %+v", e)
	}
	must(t, m.Settle())
	st := m.Committed()
	last := st.Entries[len(st.Entries)-1]
	if last.ID != "r1" || !strings.Contains(last.Message, `"api":"unknown"`) || !strings.Contains(last.Message, InterruptedWarning) {
		t.Fatalf("synthetic entry: %+v", last)
	}
	if u := st.Usage[0]; u.ID != "g1" || u.EntryID != "r1" || strings.Contains(u.Usage, ":1") {
		t.Fatalf("usage row: %+v", u)
	}
	if o := st.Ops["op"]; o.At != AtRetryWait || o.NextAttempt != 2 || o.NotBefore != 1010 {
		t.Fatalf("next state: %+v", o)
	}
	if len(st.Lists) != 0 {
		t.Fatalf("frame list after settlement: %v", st.Lists)
	}
}

// With a committed frame the synthetic keeps the reduced partial; at the
// cap it fails the operation in the same TX.
func TestRecoveryWithFramesAtCap(t *testing.T) {
	m := started(t, 1)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("draft")}))
	must(t, m.FrameEnqueued("r1", 0, pi.EventStart, []byte(`{"type":"start"}`)))
	must(t, m.FrameCommitted("r1", 0))
	if s := m.Snapshot(); !s.Live || !strings.Contains(s.StreamingMessage, "draft") {
		t.Fatalf("live snapshot: %+v", s)
	}
	m.Crash()
	if s := m.Snapshot(); s.Live || !strings.Contains(s.StreamingMessage, "draft") {
		t.Fatalf("durable snapshot: %+v", s)
	}
	_, err := m.Step(false)
	must(t, err)
	must(t, m.Settle())
	st := m.Committed()
	if r := st.Results["op"]; r.Status != "failed" || r.TipID != "r1" || r.ErrorMessage != InterruptedWarning {
		t.Fatalf("result: %+v", r)
	}
	if len(st.Ops) != 0 || len(st.Lists) != 0 || st.Lane.Current != "" {
		t.Fatalf("terminal left state: %+v", st)
	}
	if got := strings.Join(m.Events(), ","); got != "lane_created,run_start,message_start,message_end,entry_added,turn_start,message_start,message_start(recovery),message_end(recovery),entry_added(recovery),usage,run_end:failed error=\"assistant_error\"/\""+InterruptedWarning+"\" fromTipId=null tipId=r1 endedAt=1000" {
		t.Fatalf("events: %s", got)
	}
}

// The model rejects what the rules forbid.
func TestModelRejectsIllegalInputs(t *testing.T) {
	m := started(t, 1)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.FrameEnqueued("r1", 0, pi.EventStart, []byte(`{}`)))
	if m.AfterResponse() == nil {
		t.Fatal("after_response before the stream ended was accepted")
	}
	final := partial("x")
	final.StopReason = pi.StopStop
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Message: final}))
	if m.FrameEnqueued("r1", 1, pi.EventDone, []byte(`{}`)) == nil {
		t.Fatal("a frame for the terminal event was accepted")
	}
	if m.AfterResponse() == nil {
		t.Fatal("after_response with a queued frame (no drain) was accepted")
	}
	if ok, err := m.Finalize("aborted", "", ""); !ok || err != nil {
		t.Fatal("finalize of the current op did not commit")
	}
	if m.FrameCommitted("r1", 0) == nil {
		t.Fatal("a frame committed after finalization (fence) was accepted")
	}
	if m.Committed().Results["op"].Status != "aborted" {
		t.Fatal("finalize did not record the result")
	}
}

// Cancellation wins over complete-looking content.
func TestCancellationWins(t *testing.T) {
	m := started(t, 3)
	m.Cancel()
	final := partial("complete")
	final.StopReason = pi.StopStop
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	if out, err := m.StepDone(true); err != nil || out.Kind != "progress" {
		t.Fatalf("step done: %+v %v", out, err)
	}
	st := m.Committed()
	if !strings.Contains(st.Entries[1].Message, `"stopReason":"aborted"`) || st.Ops["op"].At != AtCheckpoint {
		t.Fatalf("cancelled settlement: %+v", st)
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "terminate" || e.Status != "aborted" {
		t.Fatalf("reconcile: %+v", e)
	}
}

// After an external finalization the stream may still be consumed, but the
// snapshot shows neither its live partial nor a durable one.
func TestSnapshotAfterFinalizationShowsNoPartial(t *testing.T) {
	m := started(t, 1)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("draft")}))
	if s := m.Snapshot(); !s.Live || !strings.Contains(s.StreamingMessage, "draft") {
		t.Fatalf("owned stream: %+v", s)
	}
	if ok, err := m.Finalize("aborted", "", ""); !ok || err != nil {
		t.Fatal("finalize did not commit")
	}
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventTextStart, Partial: partial("draft more")}))
	if s := m.Snapshot(); s.Live || s.StreamingMessage != "" {
		t.Fatalf("fenced stream after finalization: %+v", s)
	}
}

// pi-ai 1.0.3 dist/utils/retry.js retryDelayMs under runtime/drive/retry.ts
// retryNotBefore: the delay is capped (default 60 s) before the sum.
func TestNotBeforeFollowsRetryDelayMs(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		now, base float64
		limit     *float64
		attempt   int
		want      float64
	}{
		{1000, 10, nil, 1, 1010}, {1000, 10, nil, 3, 1040}, {1000, 10, nil, 0, 1010},
		{1000, 1000, nil, 7, 61000}, {1000, 1000, nil, 35, 61000},
		{1000, 0.5, nil, 1, 61000}, {1000, 10, nil, 60, 61000}, {maxSafeInteger, 10, nil, 1, maxSafeInteger},
		{0, 1000, f(2500), 3, 2500}, {0, 1000, f(1e12), 30, 536870912000}, {0, 1000, f(0), 3, 0},
		{0, 1000, f(math.NaN()), 3, maxSafeInteger},
	} {
		if got := notBefore(c.now, c.base, c.limit, c.attempt); got != c.want {
			t.Errorf("notBefore(%v, %v, %v, %d) = %v, want %v", c.now, c.base, c.limit, c.attempt, got, c.want)
		}
	}
}

// runtime/lane.ts captureLaneSnapshot: the capture shows the reduction of the
// committed frames, not the live partial the stream has reached.
func TestCaptureShowsCommittedFramesOnly(t *testing.T) {
	m := started(t, 1)
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("draft")}))
	if c := m.Capture(); c.Live || c.StreamingMessage != "" {
		t.Fatalf("capture before any committed frame: %+v", c)
	}
	must(t, m.FrameEnqueued("r1", 0, pi.EventStart, []byte(`{"type":"start"}`)))
	must(t, m.FrameCommitted("r1", 0))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventTextStart, Partial: partial("draft more")}))
	c, s := m.Capture(), m.Snapshot()
	if c.Live || !strings.Contains(c.StreamingMessage, "draft") || strings.Contains(c.StreamingMessage, "more") {
		t.Fatalf("capture: %+v", c)
	}
	if !s.Live || !strings.Contains(s.StreamingMessage, "draft more") {
		t.Fatalf("the seed's snapshot keeps the live partial: %+v", s)
	}
}

func overflowed(t *testing.T, run Run) *Model {
	m := startedWith(t, run)
	final := partial("")
	final.StopReason, final.ErrorMessage = pi.StopError, pi.Str("prompt is too long: 213462 tokens > 200000 maximum")
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: final}))
	must(t, m.AfterResponse())
	return m
}

// runtime/drive/response.ts publishResponse + structural.ts
// prepareOverflowCompaction: an overflow settles into summary.deciding with
// the compaction preparation of the branch (here the run's user message,
// kept whole: 1 estimated token, under keepRecentTokens), written before
// the op state; the next step waits for the structural decision.
func TestOverflowSettlementPreparesCompaction(t *testing.T) {
	settings := &Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}
	m := overflowed(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10, Compaction: settings})
	must(t, m.Settle())
	o := m.Committed().Ops["op"]
	user := messageJSON(&pi.UserMessage{Text: "hi", Timestamp: 1000})
	want := `{"kind":"compaction","messagesToSummarize":[],"turnPrefixMessages":[],"retainedTail":[` + user +
		`],"isSplitTurn":false,"tokensBefore":1,"fileOps":{"read":[],"written":[],"edited":[]},"settings":{"enabled":true,"reserveTokens":16384,"keepRecentTokens":20000}}`
	if o.At != AtSummaryDeciding || o.Preparation != want {
		t.Fatalf("overflow settles into %q with preparation\n got %s\nwant %s", o.At, o.Preparation, want)
	}
	ws, _ := m.TakeTX()
	if got := names(ws); !strings.Contains(got, "value set pi.op.preparation/op:* = "+want+"; value set pi.op.state/op") {
		t.Fatalf("settlement writes: %s", got)
	}
	if _, err := m.StepDone(true); err != nil {
		t.Fatal(err)
	}
	if e, err := m.Step(false); err != nil || e != (Expect{Kind: "wait", Reason: "summary"}) {
		t.Fatalf("after overflow: %+v %v", e, err)
	}
}

// structural.ts prepareOverflowCompaction reads settings.compaction: a run
// without it makes prepareCompaction throw V8's TypeError, and the lane faults.
func TestOverflowWithoutCompactionSettingsMustFault(t *testing.T) {
	m := overflowed(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10})
	err := m.Settle()
	if err == nil || !strings.Contains(err.Error(), "must fault: Cannot read properties of undefined (reading 'keepRecentTokens')") {
		t.Fatalf("overflow settlement: %v", err)
	}
}

func parsed(t *testing.T, raw string) pi.JSONValue {
	t.Helper()
	v, err := pi.ParseJSON(raw)
	must(t, err)
	return v
}

// compaction.ts prepareCompaction: a branch ending in a compaction has
// nothing to compact (response.ts then fails the run); a cut on an
// assistant message splits the turn at its user message, and tokensBefore
// is the last usable usage (60) plus the estimates after it (2+5+1).
func TestPreparationRules(t *testing.T) {
	s := &Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 5}
	u1 := `{"role":"user","content":"aaaaaaaaaaaa","timestamp":1}`
	if _, _, ok, thrown := preparation([]pathItem{{message: parsed(t, u1)}, {compaction: true}}, s); ok || thrown != "" {
		t.Fatalf("a branch ending in a compaction has nothing to compact: ok=%t thrown=%q", ok, thrown)
	}
	a1 := `{"role":"assistant","content":[{"type":"text","text":"bbbbbbbbbbbbbbbb"}],"stopReason":"stop","usage":{"input":50,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":60},"timestamp":2}`
	u2 := `{"role":"user","content":"cccccccc","timestamp":3}`
	a2 := `{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"x.go"}}],"stopReason":"toolUse","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":4}`
	u3 := `{"role":"user","content":"dd","timestamp":5}`
	var path []pathItem
	for _, raw := range []string{u1, a1, u2, a2, u3} {
		path = append(path, pathItem{message: parsed(t, raw)})
	}
	got, before, ok, thrown := preparation(path, s)
	want := `{"kind":"compaction","messagesToSummarize":[` + u1 + `,` + a1 + `],"turnPrefixMessages":[` + u2 +
		`],"retainedTail":[` + a2 + `,` + u3 + `],"isSplitTurn":true,"tokensBefore":68,` +
		`"fileOps":{"read":[],"written":[],"edited":[]},"settings":{"enabled":true,"reserveTokens":16384,"keepRecentTokens":5}}`
	if !ok || thrown != "" || got != want {
		t.Fatalf("preparation ok=%t thrown=%q\n got %s\nwant %s", ok, thrown, got, want)
	}
	// the threshold question reads the preparation's tokensBefore
	if before != 68 {
		t.Fatalf("preparation's tokensBefore %v, its JSON states 68", before)
	}
}

// runtime/drive/terminal.ts operationResultRecord: an error only with
// "failed", and "failed" only with an error; a refusal states an empty
// transaction and leaves the operation current.
func TestFinalizeRefusesErrorNotMatchingStatus(t *testing.T) {
	m := started(t, 1)
	for _, c := range [][3]string{{"aborted", "external", "x"}, {"completed", "", "x"}, {"failed", "", ""}} {
		ok, err := m.Finalize(c[0], c[1], c[2])
		if ok || err == nil || err.Error() != ResultErrorRefusal {
			t.Fatalf("%v: committed=%v err=%v", c, ok, err)
		}
		if ws, known := m.TakeTX(); !known || len(ws) != 0 {
			t.Fatalf("%v: refusal stated %v (known %v)", c, ws, known)
		}
	}
	if ok, err := m.Finalize("failed", "external", "x"); !ok || err != nil {
		t.Fatalf("failed with an error: committed=%v err=%v", ok, err)
	}
	if got := m.Committed().Results; len(got) != 1 {
		t.Fatalf("results %v", got)
	}
}

// runtime/lane.ts Lane.drive: a drive claim finding the active drive on
// the current operation observes it: no second step, its outcome returned.
func TestSecondDriveObservesTheStepInProgress(t *testing.T) {
	m := newModel()
	if err := m.ObserveDrive(); err == nil {
		t.Fatal("observing with no step in progress must be refused")
	}
	m = started(t, 1)
	must(t, m.ObserveDrive())
	if _, err := m.Step(false); err == nil {
		t.Fatal("a second step beside the active one must be refused")
	}
	if _, _, err := m.ObservedDone(); err == nil {
		t.Fatal("an observer cannot return before the step it observed")
	}
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	m.Crash()
	if _, _, err := m.ObservedDone(); err == nil {
		t.Fatal("an observer dies with its process: nothing is left to report")
	}
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "recover" {
		t.Fatalf("step after the crash: %+v", e)
	}
	must(t, m.ObserveDrive())
	must(t, m.Settle())
	want, err := m.StepDone(true)
	must(t, err)
	out, ok, err := m.ObservedDone()
	must(t, err)
	if !ok || out != want {
		t.Fatalf("observer reports %+v ok=%v, the step returned %+v", out, ok, want)
	}
}

// runtime/drive/response.ts publishResponse: each planned call's
// resultEntryId is idGenerator.next(uuidV7Timestamp(responseEntryId)), so
// it carries the response id's 48-bit timestamp.
func TestToolResultIDsFollowTheResponse(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
	toReady(t, m, "s1")
	_, err := m.Step(false)
	must(t, err)
	resp := "0190a123-4567-7000-8000-000000000002"
	must(t, m.Intent("op", resp, "g1", 1))
	must(t, m.Admit())
	final := partial("")
	final.Content = []pi.Content{pi.TextContent{Text: "a"}, pi.ToolCall{ID: "c1", Name: "read"}, pi.ToolCall{ID: "c2", Name: "read"}}
	final.StopReason = pi.StopToolUse
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventDone, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	o := m.Committed().Ops["op"]
	if o.At != AtTools || len(o.ToolCalls) != 2 || strings.Join(o.ToolResultStamps, ",") != "0190a1234567,0190a1234567" {
		t.Fatalf("tools leaf: %+v", o)
	}
}

// compaction/compaction.ts extractFileOperations (with utils.ts
// extractFileOpsFromMessage): the previous compaction's readFiles seed read
// and its modifiedFiles seed edited, then each assistant tool call named
// read, write or edit with a non-empty string path adds it, once, in
// first-seen order (JS Sets); other roles, names and paths are skipped.
func TestFileOpsFollowPi(t *testing.T) {
	prev := &pathItem{compaction: true, details: parsed(t, `{"readFiles":["x.go",7],"modifiedFiles":["y.go"]}`)}
	msgs := []pi.JSONValue{
		parsed(t, `{"role":"user","content":[{"type":"toolCall","name":"read","arguments":{"path":"user.go"}}]}`),
		parsed(t, `{"role":"assistant","content":[`+
			`{"type":"toolCall","id":"1","name":"read","arguments":{"path":"a.go"}},`+
			`{"type":"toolCall","id":"2","name":"write","arguments":{"path":"b.go"}},`+
			`{"type":"text","text":"{\"path\":\"text.go\"}"},`+
			`{"type":"toolCall","id":"3","name":"edit","arguments":{"path":"c.go"}},`+
			`{"type":"toolCall","id":"4","name":"edit","arguments":{"path":""}},`+
			`{"type":"toolCall","id":"5","name":"bash","arguments":{"path":"d.go"}},`+
			`{"type":"toolCall","id":"6","name":"write","arguments":{"path":3}}]}`),
		parsed(t, `{"role":"assistant","content":[{"type":"toolCall","id":"7","name":"read","arguments":{"path":"x.go"}},`+
			`{"type":"toolCall","id":"8","name":"read","arguments":{"path":"a.go"}}]}`),
	}
	got := string(fileOps(prev, msgs).AppendJSON(nil))
	want := `{"read":["x.go","a.go"],"written":["b.go"],"edited":["y.go","c.go"]}`
	if got != want {
		t.Fatalf("fileOps\n got %s\nwant %s", got, want)
	}
}

// startRunOn acquires the lane with the run's configuration (a commit only
// the first time) and starts the run, as a driver feeds both.
func startRunOn(m *Model, op, user string, run Run) error {
	m.Acquire(runConfig(run))
	return m.StartRun(op, user, run)
}

// OpIDs and ListKeys, kept between the inputs that add an operation or a
// stream, list what listing the maps again lists, and an append to either
// leaves the kept list alone.
func TestListedKeysFollowTheMaps(t *testing.T) {
	m := newModel()
	listed := func(when string) {
		t.Helper()
		set := map[string]bool{}
		for resp, s := range m.streams {
			set[FramesKey(s.op, resp)] = true
		}
		if got, want := strings.Join(m.OpIDs(), ","), strings.Join(sortedKeys(m.ops), ","); got != want {
			t.Fatalf("%s: OpIDs %s, the operations %s", when, got, want)
		}
		if got, want := strings.Join(m.ListKeys(), ","), strings.Join(sortedKeys(set), ","); got != want {
			t.Fatalf("%s: ListKeys %s, the streams' keys %s", when, got, want)
		}
		_ = append(m.OpIDs(), "zz")
		_ = append(m.ListKeys(), "zz")
	}
	listed("new")
	run := Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, BaseDelayMs: 10}
	must(t, startRunOn(m, "op", "u1", run))
	listed("started")
	toReady(t, m, "s1")
	listed("ready")
	if _, err := m.Step(false); err != nil {
		t.Fatal(err)
	}
	must(t, m.Intent("op", "r1", "g1", 1))
	listed("intent")
	if len(m.OpIDs()) != 1 || len(m.ListKeys()) != 1 {
		t.Fatalf("OpIDs %q, ListKeys %q", m.OpIDs(), m.ListKeys())
	}
}

// runtime/drive/response.ts publishResponse and generation.ts runRetryWait:
// a retryable failure emits retry_scheduled {step, attempt (the next),
// maxAttempts, delayMs (retryDelay of the failed attempt), notBefore,
// errorMessage}; the retry wait's step retry_start {step, attempt}; the
// next attempt's settlement retry_end {step, attempt, success, finalError
// only when it failed}; an overflow compaction_start {reason, startedAt}.
func TestModelRetryAndCompactionEventsCarryPisMembers(t *testing.T) {
	m := startedWith(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10})
	final := partial("")
	final.StopReason, final.ErrorMessage = pi.StopError, pi.Str("overloaded")
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventStart, Partial: partial("")}))
	must(t, m.ProviderEvent(&pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: final}))
	must(t, m.AfterResponse())
	must(t, m.Settle())
	ev := m.Events()
	if got, want := ev[len(ev)-1], `retry_scheduled step=s1 attempt=2/3 delayMs=10 notBefore=1010 error="overloaded"`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	_, err := m.StepDone(true)
	must(t, err)
	e, err := m.Step(false)
	must(t, err)
	if e.Kind != "retry" {
		t.Fatalf("step %+v", e)
	}
	_, err = m.StepDone(true)
	must(t, err)
	ev = m.Events()
	if got, want := ev[len(ev)-1], `retry_start step=s1 attempt=2`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if got := RetryEndEvent("s1", 2, false, pi.Str("503")); got != `retry_end step=s1 attempt=2 success=false finalError="503"` {
		t.Fatalf("retry_end: %s", got)
	}
	if got := RunEndEvent(Result{Status: "completed", TipID: "r1"}, 1000); got != `run_end:completed fromTipId=null tipId=r1 endedAt=1000` {
		t.Fatalf("run_end: %s", got)
	}

	o := overflowed(t, Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 3, BaseDelayMs: 10,
		Compaction: &Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000}})
	must(t, o.Settle())
	ev = o.Events()
	if got, want := ev[len(ev)-1], `compaction_start:overflow startedAt=1000`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
