package lane

import (
	"errors"
	"sync"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	storebackends "github.com/frameproof/frameproof/impl/store/backends"
	"github.com/stretchr/testify/require"
)

// ---- deterministic clock and ids: impl/env/envtest ----

func newClock() *envtest.Clock { return envtest.NewClock(envtest.Epoch) }

// ---- backends: every row of the registry, fresh in a temp dir ----

type backend struct {
	name string
	open func(t *testing.T, clock env.Clock) store.Storage
}

var backends = registryBackends()

func registryBackends() []backend {
	var out []backend
	for _, b := range storebackends.All() {
		out = append(out, backend{b.Name, func(t *testing.T, clock env.Clock) store.Storage {
			e := env.Env{Clock: clock, FS: env.OSFS{}, IDs: &envtest.IDs{}, Executor: env.Goroutines{}}
			st, err := b.Create(e, t.TempDir(), storebackends.Options{})
			require.NoError(t, err)
			t.Cleanup(func() { _ = st.Close() })
			return st
		}})
	}
	return out
}

func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// ---- storage wrappers ----

// gatedStore parks commits whose writes match while a gate is closed.
type gatedStore struct {
	store.Storage
	mu      sync.Mutex
	gate    env.Completer // nil: open
	match   func([]store.Write) bool
	parked  int
	failErr error // non-nil: commits after failAfter fail
	commits int
	failAt  int             // 0: never; n: the n-th commit (1-based) and later fail
	log     [][]store.Write // every committed write list, in commit order
}

// GetEntries and ScanBranch pass the queries on (read from every entry
// when the store under the gate does not have them), so that the lane
// reads through a store's indexes here as it does on a bare store.
func (g *gatedStore) GetEntries(ids []string) (store.EntryList, error) {
	return store.GetEntriesOf(g.Storage, ids)
}

func (g *gatedStore) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	return store.ScanBranchOf(g.Storage, q)
}

func (g *gatedStore) Commit(ws []store.Write) (store.CommitResult, error) {
	g.mu.Lock()
	gate := g.gate
	if gate != nil && (g.match == nil || g.match(ws)) {
		g.parked++
	} else {
		gate = nil
	}
	g.commits++
	n := g.commits
	fail := g.failAt > 0 && n >= g.failAt
	g.mu.Unlock()
	if gate != nil {
		_ = gate.Wait()
	}
	if fail {
		return store.CommitResult{}, g.failErr
	}
	res, err := g.Storage.Commit(ws)
	if err == nil {
		g.mu.Lock()
		g.log = append(g.log, ws)
		g.mu.Unlock()
	}
	return res, err
}

func isFrameAppend(ws []store.Write) bool {
	return len(ws) == 1 && ws[0].Kind == store.WriteList && ws[0].Op == store.OpAppend
}

// ---- scripted provider ----

// acc is a provider's shared live accumulator plus event constructors that
// mutate it the way pi-ai providers do.
type acc struct{ m *pi.AssistantMessage }

func newAcc() *acc {
	return &acc{m: &pi.AssistantMessage{Content: []pi.Content{}, API: "openai-responses", Provider: "openai", Model: "gpt-test", StopReason: pi.StopPending, Timestamp: 1_700_000_000_000}}
}

type evFn func() pi.Event

func (a *acc) start() evFn {
	return func() pi.Event { return pi.Event{Type: pi.EventStart, Partial: a.m} }
}
func (a *acc) textStart(i int) evFn {
	return func() pi.Event {
		a.m.Content = append(a.m.Content, pi.TextContent{})
		return pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(i), Partial: a.m}
	}
}
func (a *acc) textDelta(i int, d string) evFn {
	return func() pi.Event {
		b := a.m.Content[i].(pi.TextContent)
		b.Text += d
		a.m.Content[i] = b
		return pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(i), Delta: d, Partial: a.m}
	}
}
func (a *acc) textEnd(i int, final string) evFn {
	return func() pi.Event {
		b := a.m.Content[i].(pi.TextContent)
		b.Text = final
		a.m.Content[i] = b
		return pi.Event{Type: pi.EventTextEnd, ContentIndex: pi.Index(i), Content: final, Partial: a.m}
	}
}
func (a *acc) thinkStart(i int) evFn {
	return func() pi.Event {
		a.m.Content = append(a.m.Content, pi.ThinkingContent{})
		return pi.Event{Type: pi.EventThinkingStart, ContentIndex: pi.Index(i), Partial: a.m}
	}
}
func (a *acc) thinkDelta(i int, d string) evFn {
	return func() pi.Event {
		b := a.m.Content[i].(pi.ThinkingContent)
		b.Thinking += d
		a.m.Content[i] = b
		return pi.Event{Type: pi.EventThinkingDelta, ContentIndex: pi.Index(i), Delta: d, Partial: a.m}
	}
}
func (a *acc) toolStart(i int, id, name string) evFn {
	return func() pi.Event {
		a.m.Content = append(a.m.Content, pi.ToolCall{ID: id, Name: name, Arguments: pi.EmptyObject()})
		return pi.Event{Type: pi.EventToolCallStart, ContentIndex: pi.Index(i), Partial: a.m}
	}
}
func (a *acc) toolDelta(i int, d string) evFn {
	return func() pi.Event {
		return pi.Event{Type: pi.EventToolCallDelta, ContentIndex: pi.Index(i), Delta: d, Partial: a.m}
	}
}
func (a *acc) toolEnd(i int, args string) evFn {
	return func() pi.Event {
		v, _ := pi.ParseJSON(args)
		b := a.m.Content[i].(pi.ToolCall)
		b.Arguments = v
		a.m.Content[i] = b
		return pi.Event{Type: pi.EventToolCallEnd, ContentIndex: pi.Index(i), ToolCall: &b, Partial: a.m}
	}
}
func (a *acc) done(reason pi.StopReason) evFn {
	return func() pi.Event {
		m := a.m.Clone()
		m.StopReason = reason
		m.Usage = pi.Usage{Input: 10, Output: 5, TotalTokens: 15}
		return pi.Event{Type: pi.EventDone, Reason: reason, Message: m}
	}
}
func (a *acc) fail(reason pi.StopReason, msg string) evFn {
	return func() pi.Event {
		m := a.m.Clone()
		m.StopReason, m.ErrorMessage = reason, pi.Str(msg)
		return pi.Event{Type: pi.EventError, Reason: reason, Message: m}
	}
}
func (a *acc) deferred(h pi.DeferredHandle) evFn {
	return func() pi.Event {
		m := a.m.Clone()
		m.StopReason, m.Deferred = pi.StopDeferred, &h
		return pi.Event{Type: pi.EventDone, Reason: pi.StopDeferred, Message: m}
	}
}

// script is one provider response; before(i) runs before event i is
// produced (to park, crash or observe).
type script struct {
	events []evFn
	before func(i int)
}

type scriptStream struct {
	s *script
	i int
}

func (s *scriptStream) Next() (pi.Event, error) {
	if s.i >= len(s.s.events) {
		return pi.Event{}, errors.New("script exhausted")
	}
	if s.s.before != nil {
		s.s.before(s.i)
	}
	ev := s.s.events[s.i]()
	s.i++
	return ev, nil
}

// fakeProvider serves scripts in order, recording requests.
type fakeProvider struct {
	mu       sync.Mutex
	scripts  []*script
	requests []Request
}

func (p *fakeProvider) add(s ...*script) { p.scripts = append(p.scripts, s...) }

func (p *fakeProvider) Stream(req Request) Stream {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	if len(p.scripts) == 0 {
		return &scriptStream{s: &script{}}
	}
	s := p.scripts[0]
	p.scripts = p.scripts[1:]
	return &scriptStream{s: s}
}

func seq(fs ...evFn) *script { return &script{events: fs} }

// ---- harness ----

type harness struct {
	t        *testing.T
	clock    *envtest.Clock
	ids      *envtest.IDs
	store    store.Storage
	gated    *gatedStore
	provider *fakeProvider
	mu       sync.Mutex
	events   []Event
	frames   []FrameRecord
	tele     []TelemetryRecord
	hook     AfterResponse
	hookRuns int
	bugs     bugs
	budget   int
	lane     *Lane
	exec     env.Executor
	// listener, when set, runs after the harness records each event.
	listener Listener
	// sleeper, when set, is the lane's clock (to observe or hold timers).
	sleeper env.Clock
	// skipStale sets Config.SkipStaleSettlement.
	skipStale bool
	// models is Config.Models (threshold_test.go).
	models Models
	// tools is Config.Tools; holdTools sets Config.HoldToolBatches.
	tools     []Tool
	holdTools bool
	// toolExecution is Config.ToolExecution.
	toolExecution string
	// onFrame and onTele, when set, also observe each frame record and each
	// commit's telemetry (on the line, in line order).
	onFrame func(FrameRecord)
	onTele  func(TelemetryRecord)
}

func newHarness(t *testing.T, b backend) *harness {
	h := &harness{t: t, clock: newClock(), ids: &envtest.IDs{}, provider: &fakeProvider{}}
	h.store = b.open(t, h.clock)
	h.gated = &gatedStore{Storage: h.store, failErr: errors.New("disk on fire")}
	return h
}

func (h *harness) config() Config {
	return Config{
		Name: "main", Storage: h.gated, Clock: h.laneClock(), IDs: h.ids, Exec: h.executor(), Provider: h.provider,
		Listener: func(ev Event) env.Future {
			h.mu.Lock()
			h.events = append(h.events, ev)
			extra := h.listener
			h.mu.Unlock()
			if extra != nil {
				return extra(ev)
			}
			return nil
		},
		AfterResponse: func(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
			h.mu.Lock()
			h.hookRuns++
			hook := h.hook
			h.mu.Unlock()
			if hook != nil {
				return hook(m)
			}
			return m, nil
		},
		Limits:      ModelLimits{MaxTokens: 0, ContextWindow: 0},
		FrameBudget: h.budget,
		OnFrame: func(r FrameRecord) {
			h.mu.Lock()
			h.frames = append(h.frames, r)
			extra := h.onFrame
			h.mu.Unlock()
			if extra != nil {
				extra(r)
			}
		},
		Telemetry: func(r TelemetryRecord) {
			h.mu.Lock()
			h.tele = append(h.tele, r)
			extra := h.onTele
			h.mu.Unlock()
			if extra != nil {
				extra(r)
			}
		},
		bugs:                h.bugs,
		SkipStaleSettlement: h.skipStale,
		Models:              h.models,
		Tools:               h.tools,
		HoldToolBatches:     h.holdTools,
		ToolExecution:       h.toolExecution,
	}
}

// open (re)opens a lane process on the same storage.
func (h *harness) open() *Lane {
	l, err := Open(h.config())
	require.NoError(h.t, err)
	h.lane = l
	return l
}

func defaultRun(maxAttempts int) RunOptions {
	return RunOptions{UserText: "hi", Configuration: Configuration{Model: ModelRef{Provider: "openai", ModelID: "gpt-test"}, ThinkingLevel: "off"},
		RetryPolicy: RetryPolicy{MaxAttempts: maxAttempts, BaseDelayMs: 1000}}
}

// start starts a run and drives it to assistant.ready: the first step
// commits the initial checkpoint, the second mints the assistant step
// (checkpoint.go), so the test's next step generates.
func (h *harness) start(maxAttempts int) string {
	return h.startRun(defaultRun(maxAttempts))
}

func (h *harness) startRun(opts RunOptions) string {
	op, err := h.lane.StartRun(opts)
	require.NoError(h.t, err)
	for _, want := range []Leaf{LeafCheckpoint, LeafAssistantReady} {
		r, err := h.lane.Step(StepOptions{})
		require.NoError(h.t, err)
		require.Equal(h.t, StepProgress, r.Kind)
		require.Equal(h.t, want, h.lane.Current().State.At)
	}
	return op
}

func (h *harness) eventTypes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		s := string(e.Type)
		if e.Recovery {
			s += "(recovery)"
		}
		out = append(out, s)
	}
	return out
}

// responseEventTypes is eventTypes without the prompt entry's lifecycle
// events (Event.Prompt), i.e. what responses and the run emitted.
func (h *harness) responseEventTypes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, e := range h.events {
		if e.Prompt == nil {
			out = append(out, string(e.Type))
		}
	}
	return out
}

func (h *harness) resetEvents() {
	h.mu.Lock()
	h.events, h.frames, h.tele = nil, nil, nil
	h.mu.Unlock()
}

func (h *harness) frameList(op, resp string) []store.ListElement {
	els, err := h.store.ReadList(FramesAddr(op, resp), store.ReadOptions{Limit: 10_000})
	require.NoError(h.t, err)
	return els
}

// entryMessage returns the committed assistant message of entry id.
func (h *harness) entryMessage(id string) *pi.AssistantMessage {
	m, err := pi.DecodeAssistantMessage(h.entryMessageValue(id), "message")
	require.NoError(h.t, err)
	return m
}

// entryMessageValue is the message member of committed entry id, untyped.
func (h *harness) entryMessageValue(id string) pi.JSONValue {
	es, err := h.store.Entries()
	require.NoError(h.t, err)
	for _, e := range es {
		if e.Entry.ID == id {
			v, err := pi.ParseJSON(string(e.Entry.Raw))
			require.NoError(h.t, err)
			mv, _ := v.ObjectValue().Get("message")
			return mv
		}
	}
	h.t.Fatalf("entry %s not committed", id)
	return pi.JSONValue{}
}

func (h *harness) usageOf(id string) string {
	us, err := h.store.Usage()
	require.NoError(h.t, err)
	for _, u := range us {
		if u.Row.ID == id {
			return string(u.Row.Raw)
		}
	}
	return ""
}

func (h *harness) stateOf(op string) *OpState {
	v, err := h.store.GetValue(OpStateAddr(op))
	require.NoError(h.t, err)
	if v == nil {
		return nil
	}
	s, err := DecodeState(v.Value)
	require.NoError(h.t, err)
	return s
}

func (h *harness) resultOf(op string) string {
	v, err := h.store.GetValue(ResultAddr(op))
	require.NoError(h.t, err)
	if v == nil {
		return ""
	}
	return string(v.Value)
}

func textOf(m *pi.AssistantMessage) string {
	s := ""
	for _, c := range m.Content {
		if t, ok := c.(pi.TextContent); ok {
			s += t.Text
		}
	}
	return s
}

// simple stop response: "hello world"
func helloScript() *script {
	a := newAcc()
	return seq(a.start(), a.textStart(0), a.textDelta(0, "hello "), a.textDelta(0, "world"), a.textEnd(0, "hello world"), a.done(pi.StopStop))
}

func (h *harness) executor() env.Executor {
	if h.exec != nil {
		return h.exec
	}
	return env.Goroutines{}
}

func (h *harness) laneClock() env.Clock {
	if h.sleeper != nil {
		return h.sleeper
	}
	return h.clock
}

// enqueue is Lane.Enqueue for a test that needs it to succeed: the queued
// item's entry id.
func (h *harness) enqueue(kind QueueKind, text string) string {
	h.t.Helper()
	id, err := h.lane.Enqueue(kind, text)
	require.NoError(h.t, err)
	return id
}
