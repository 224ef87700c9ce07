package main

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// builder writes a stream by hand: set changes the live message, emit queues
// an event carrying a snapshot of the live message as its partial (or, for
// done/error, as its message). Setting before emitting makes the partial run
// ahead of the event.
type builder struct {
	live *pi.AssistantMessage
	evs  []*pi.Event
}

func newBuilder() *builder {
	return &builder{live: &pi.AssistantMessage{Content: []pi.Content{}, API: "anthropic-messages", Provider: "anthropic",
		Model: "claude-x", StopReason: pi.StopPending, Timestamp: 1767225600000}}
}

func (b *builder) set(i int, c pi.Content) *builder {
	for len(b.live.Content) <= i {
		b.live.Content = append(b.live.Content, nil)
	}
	b.live.Content[i] = c
	return b
}

func (b *builder) emit(e pi.Event) *builder {
	if e.Type == pi.EventDone || e.Type == pi.EventError {
		e.Message = b.live.Clone()
	} else {
		e.Partial = b.live.Clone()
	}
	b.evs = append(b.evs, &e)
	return b
}

func (b *builder) start() *builder { return b.emit(pi.Event{Type: pi.EventStart}) }
func (b *builder) done() *builder {
	b.live.StopReason = pi.StopStop
	return b.emit(pi.Event{Type: pi.EventDone, Reason: pi.StopStop})
}

func (b *builder) raw() []json.RawMessage { return rawEvents(b.evs) }

func text(s string) pi.Content { return pi.TextContent{Text: s} }
func thinking(s string, sig *string, red *bool) pi.Content {
	return pi.ThinkingContent{Thinking: s, ThinkingSignature: sig, Redacted: red}
}
func call(args string) pi.Content {
	v, err := pi.ParseJSON(args)
	if err != nil {
		panic(err)
	}
	return pi.ToolCall{ID: "call_1", Name: "read", Arguments: v}
}
func ev(t pi.EventType, i int) pi.Event { return pi.Event{Type: t, ContentIndex: pi.Index(i)} }
func delta(t pi.EventType, i int, d string) pi.Event {
	return pi.Event{Type: t, ContentIndex: pi.Index(i), Delta: d}
}
func end(t pi.EventType, i int, content string) pi.Event {
	return pi.Event{Type: t, ContentIndex: pi.Index(i), Content: content}
}
func callEnd(i int, c pi.Content) pi.Event {
	tc := c.(pi.ToolCall)
	return pi.Event{Type: pi.EventToolCallEnd, ContentIndex: pi.Index(i), ToolCall: &tc}
}

// units builds a string from UTF-16 code units (for lone surrogates).
func units(u ...uint16) string { return pi.FromUTF16(u) }

// replaceIn rewrites one raw event (for shapes the Go types cannot hold).
func replaceIn(evs []json.RawMessage, i int, old, new string) []json.RawMessage {
	s := string(evs[i])
	if !strings.Contains(s, old) {
		panic("vecgen: " + old + " not in event")
	}
	evs[i] = json.RawMessage(strings.Replace(s, old, new, 1))
	return evs
}

// edgeEncodeFile holds the hand-picked encode vectors.
const edgeEncodeFile = "encode-edge.jsonl"

// Event types, short so that a stream reads on one line.
const (
	T, TD, TE = pi.EventTextStart, pi.EventTextDelta, pi.EventTextEnd
	K, KD, KE = pi.EventThinkingStart, pi.EventThinkingDelta, pi.EventThinkingEnd
	C, CD     = pi.EventToolCallStart, pi.EventToolCallDelta
)

// edgeEncode records the hand-picked encode vectors, one group of related
// edges per helper; the order of the calls is the order of the file.
func (g *gen) edgeEncode() {
	g.edgeRunAhead()
	g.edgeToolCalls()
	g.edgeBlocks()
	g.edgeSerialization()
	g.edgeSequence()
	g.edgeContentIndex()
}

func (g *gen) addEdge(name, why string, evs []json.RawMessage) {
	g.add(edgeEncodeFile, g.encodeVector("encode/edge-"+name, "hand-picked: "+why, evs))
}

// edgeRunAhead: a partial that runs ahead of its event.
func (g *gen) edgeRunAhead() {
	b := newBuilder().start().set(0, text("Hello wor")).emit(ev(T, 0))
	b.emit(delta(TD, 0, "He")).emit(delta(TD, 0, "llo")).emit(delta(TD, 0, " w")).set(0, text("Hello world")).emit(delta(TD, 0, "orld"))
	g.addEdge("covered-deltas", "start snapshot ran ahead: deltas it covers give no frame, a partly covered delta is sliced", b.emit(end(TE, 0, "Hello world")).done().raw())

	b = newBuilder().set(0, text("early")).start()
	b.live.StopReason = pi.StopStop
	b.live.ErrorMessage = pi.Str("dropped")
	b.emit(ev(T, 0)).emit(end(TE, 0, "early"))
	g.addEdge("run-ahead-start", "start partial already holds content and a stopReason; the start frame has content [] and stopReason pending", b.raw())
}

// edgeToolCalls: tool-call argument deltas against the start snapshot.
func (g *gen) edgeToolCalls() {
	full := `{"path":"a.txt"}`
	b := newBuilder().start().set(0, call(full)).emit(ev(C, 0))
	for _, d := range []string{`{"pa`, `th":"a.`, `txt"}`, ``} {
		b.emit(delta(CD, 0, d))
	}
	g.addEdge("toolcall-checkpoint", "complete arguments at start: deltas give no frame until their JSON catches up, then one checkpoint", b.emit(callEnd(0, call(full))).done().raw())

	b = newBuilder().start().set(0, call(`{"a":1}`)).emit(ev(C, 0)).emit(delta(CD, 0, `{"a":1,"b":2}`)).emit(delta(CD, 0, ``))
	g.addEdge("toolcall-legacy-prefix", "legacy grammar: delta JSON extends the start snapshot (isJsonPrefix) and checkpoints", b.emit(callEnd(0, call(`{"a":1,"b":2}`))).raw())

	b = newBuilder().start().set(0, call(`{"a":1}`)).emit(ev(C, 0)).emit(delta(CD, 0, `{"a":2`)).emit(delta(CD, 0, `}`))
	g.addEdge("toolcall-never-catches-up", "delta JSON contradicts the start snapshot: no checkpoint ever", b.emit(callEnd(0, call(`{"a":2}`))).raw())

	b = newBuilder().start().set(0, call(`{}`)).emit(ev(C, 0))
	for _, d := range []string{`[1,`, ``, `"x"`, `]`} {
		b.emit(delta(CD, 0, d))
	}
	g.addEdge("toolcall-empty-start-nonobject", "empty start arguments are caught up: deltas pass through, empty ones give no frame; arguments end as an array", b.emit(callEnd(0, call(`[1,"x"]`))).done().raw())
}

// edgeBlocks: split surrogates, redacted thinking, and end-only signatures.
func (g *gen) edgeBlocks() {
	hi, lo := units(0xD83D), units(0xDE00)
	b := newBuilder().start().set(0, text("")).emit(ev(T, 0)).set(0, text("a"+hi)).emit(delta(TD, 0, "a"+hi)).set(0, text("a😀b")).emit(delta(TD, 0, lo+"b"))
	g.addEdge("split-surrogate-deltas", "an astral character split across deltas: each frame holds a lone surrogate escape", b.emit(end(TE, 0, "a😀b")).done().raw())

	b = newBuilder().start().set(0, text("a"+hi)).emit(ev(T, 0)).emit(delta(TD, 0, "a😀")).set(0, text("a😀"))
	g.addEdge("split-surrogate-covered", "start snapshot ends in a high surrogate; the covered slice of the next delta starts with the low one", b.emit(end(TE, 0, "a😀")).raw())

	b = newBuilder().start().set(0, thinking("[redacted]", pi.Str("opaque-payload"), pi.BoolPtr(true))).emit(ev(K, 0))
	g.addEdge("redacted-thinking", "redacted thinking is complete at start and carries signature and redacted on start and end", b.emit(end(KE, 0, "[redacted]")).done().raw())

	b = newBuilder().start().set(0, thinking("", nil, nil)).emit(ev(K, 0)).set(0, thinking("hm", nil, nil)).emit(delta(KD, 0, "hm"))
	b.set(0, thinking("hm", pi.Str("sig"), pi.BoolPtr(false))).emit(end(KE, 0, "hm"))
	b.set(1, pi.TextContent{Text: ""}).emit(ev(T, 1)).set(1, pi.TextContent{Text: "ok", TextSignature: pi.Str("ts")}).emit(delta(TD, 1, "ok")).emit(end(TE, 1, "ok"))
	g.addEdge("signatures-at-end", "signatures and redacted:false arrive with the end events only", b.done().raw())
}

// edgeSerialization: JS key order, string escaping, number formatting and
// the optional fields of the start frame.
func (g *gen) edgeSerialization() {
	args := `{"b":1,"10":2,"1":3,"01":4,"0":{"z":1,"2":[]},"-1":5}`
	b := newBuilder().start().set(0, call(`{}`)).emit(ev(C, 0)).set(0, call(args)).emit(delta(CD, 0, args))
	g.addEdge("integer-like-keys", "arguments with integer-like keys print in JS property order", b.emit(callEnd(0, call(args))).raw())

	esc := "</script>\u2028\u2029\u0001\u007f\"\\\t\n\r é€"
	b = newBuilder().start().set(0, text("")).emit(ev(T, 0)).set(0, text(esc)).emit(delta(TD, 0, esc))
	g.addEdge("escapes", "JSON.stringify escaping: controls escaped, U+2028/2029 and </script> raw, non-ASCII raw UTF-8", b.emit(end(TE, 0, esc)).raw())

	b = newBuilder()
	b.live.Usage = pi.Usage{Input: 1e21, Output: 123456789012, CacheRead: math.Copysign(0, -1), TotalTokens: 0.1 + 0.2,
		Cost: pi.Cost{Input: 1e-7, Output: 5e-324, CacheRead: 1.5e300, Total: 100}}
	b.live.Timestamp = 1767225600123.5
	g.addEdge("numbers", "JS number formatting: 1e21, -0 as 0, 0.30000000000000004, 1e-7, 5e-324", b.start().raw())

	b = newBuilder()
	b.live.ResponseModel, b.live.ResponseID, b.live.ProviderThinkingLevel, b.live.ThinkingLevel = pi.Str("m-2"), pi.Str("resp_1"), pi.Str("high"), pi.Str("medium")
	b.live.Diagnostics, _ = pi.ParseJSON(`[{"type":"retry","timestamp":5,"error":{"message":"m"},"details":{"1":2,"a":1}}]`)
	b.live.Usage.Reasoning = pi.NumPtr(7)
	g.addEdge("start-optional-fields", "start frame keeps responseModel, responseId, providerThinkingLevel, diagnostics; drops thinkingLevel and errorMessage", b.start().raw())
}

// edgeSequence: interleaved blocks and events out of lifecycle order.
func (g *gen) edgeSequence() {
	b := newBuilder().start().set(0, thinking("", nil, nil)).set(1, text("")).set(2, call(`{}`)).emit(ev(K, 0)).emit(ev(T, 1))
	b.set(0, thinking("t", nil, nil)).emit(delta(KD, 0, "t")).emit(ev(C, 2)).set(1, text("x")).emit(delta(TD, 1, "x"))
	b.set(2, call(`{"q":1}`)).emit(delta(CD, 2, `{"q":1}`)).emit(end(KE, 0, "t")).emit(end(TE, 1, "x")).emit(callEnd(2, call(`{"q":1}`)))
	g.addEdge("interleaved-blocks", "three block kinds open at once, deltas interleaved", b.done().raw())

	g.addEdge("error-before-start", "an error event needs no start and gives no frame", newBuilder().emit(pi.Event{Type: pi.EventError, Reason: pi.StopError}).raw())

	b = newBuilder().start().set(0, text("")).emit(ev(T, 0))
	b.live.StopReason = pi.StopAborted
	b.emit(pi.Event{Type: pi.EventError, Reason: pi.StopAborted}).emit(delta(TD, 0, "late"))
	g.addEdge("delta-after-error", "nothing may follow a terminal event", b.raw())

	g.addEdge("done-before-start", "done before start", newBuilder().done().raw())

	b = newBuilder().start().set(0, text("")).emit(ev(T, 0)).emit(end(TE, 0, "")).emit(delta(TD, 0, "x"))
	g.addEdge("delta-after-end", "a block's state is dropped at its end event", b.raw())

	// Not recorded: "toolcall_end event has invalid tool call at index N" needs a
	// toolcall_end whose toolCall has another type, which impl/pi refuses to
	// decode (its ToolCall has no type member), so the Go port cannot meet it.
}

// edgeContentIndex: contentIndex values pi-ai's isSafeInteger check meets.
func (g *gen) edgeContentIndex() {
	b := newBuilder().start().set(0, text("")).emit(ev(T, 0))
	g.addEdge("contentindex-string", `contentIndex "0" (a string) is not a safe integer`, replaceIn(b.raw(), 1, `"contentIndex":0`, `"contentIndex":"0"`))

	b = newBuilder().start().set(0, text("")).emit(ev(T, 0)).emit(delta(TD, 0, "x"))
	g.addEdge("contentindex-negative-zero", "contentIndex -0 passes Number.isSafeInteger and >= 0: it is index 0", replaceIn(b.raw(), 2, `"contentIndex":0`, `"contentIndex":-0`))

	b = newBuilder().start().set(0, text("")).emit(ev(T, 0))
	g.addEdge("contentindex-fraction", "contentIndex 1.5 is rejected with its JS rendering", replaceIn(b.raw(), 1, `"contentIndex":0`, `"contentIndex":1.5`))

	b = newBuilder().start().set(0, text("")).emit(ev(T, 0))
	g.addEdge("contentindex-huge", "contentIndex 2^53 is not a safe integer; JS prints 9007199254740992", replaceIn(b.raw(), 1, `"contentIndex":0`, `"contentIndex":9007199254740992`))
}
