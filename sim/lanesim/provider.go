package lanesim

import (
	"errors"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/frameproof/frameproof/sim/choice"
)

// The simulated model identity; a deferred handle must match it.
const (
	simAPI      = pi.APIOpenAIResponses
	simProvider = "openai"
	simModel    = "gpt-sim"
)

// How a generated response ends.
type ending int

const (
	endDone       ending = iota // done: stop, or toolUse when it has tool calls
	endError                    // error event with a retryable message
	endSetupError               // error before start: no frames at all
	endDisconnect               // transport failure mid-stream (Next error)
	endDeferred                 // done with stopReason deferred and a handle
)

// builder produces one event against the shared live accumulator, mutating
// it the way pi-ai providers do (so queued events see a partial that has run
// ahead of them).
type builder func(a *pi.AssistantMessage) pi.Event

// respPlan is one generated provider response.
type respPlan struct {
	end      ending
	builders []builder
	stallAt  int // index before which the provider stalls (-1: never)
	tools    int // tool-call blocks
}

// genOpts bias the generator per scenario.
type genOpts struct {
	maxBlocks   int
	errorWeight int // weight of endError / endSetupError / endDisconnect
	deferred    bool
	// badHandle: the deferred response's handle does not decode (none, or
	// one that does not name the run's model); only a poll answers with one
	// (a fresh response's handle is checked at its settlement)
	badHandle bool
	stall     bool
	// callPrefix starts the response's tool call ids (unique in a run, as
	// providers' ids are, so replay binds each result to its own call)
	callPrefix string
	// noTools draws text blocks where tool calls would go (an operation
	// that had its tool turn: runs end instead of looping on tools)
	noTools bool
	// midBlockRedaction adds Bedrock's encrypted reasoning to the block
	// kinds (genMidBlockRedacted), a swarm draw
	midBlockRedaction bool
	// textlessResults draws tool arguments only from those the simulated
	// tools answer without text (textlessArgs), a swarm draw
	textlessResults bool
	// toolBatches draws tool calls for most blocks and always a second
	// call beside a first (toolHeavyKinds), a swarm draw
	toolBatches bool
}

// badHandles are the handles a poll's deferred answer may carry that pi's
// readDeferredSourceHandle (runtime/drive/deferred.ts) refuses: none at
// all, an empty id, another model.
var badHandles = []string{"none", "empty-id", "other-model"}

// deferredHandle is the handle of a deferred answer: the simulated model's,
// or, for badHandle, one drawn from badHandles.
func deferredHandle(src choice.Source, bad bool) *pi.DeferredHandle {
	h := &pi.DeferredHandle{Provider: simProvider, ModelID: simModel, API: simAPI, ID: "job-1"}
	if !bad {
		return h
	}
	switch choice.Pick(src, "gen-bad-handle", badHandles) {
	case "none":
		return nil
	case "empty-id":
		h.ID = ""
	default:
		h.ModelID = simModel + "-other"
	}
	return h
}

// textPieces are the deltas text and thinking blocks stream. The last two
// are a lone high and a lone low surrogate (WTF-8): JS strings may hold
// them, and the pair, streamed as two deltas, joins into one astral
// character; covered-prefix slicing in UTF-16 units then cuts through it.
var textPieces = []string{"a", "hello ", "wörld", "😀", "x y", "\\n", "”q”", "\xed\xa0\xbd", "\xed\xb8\x80"}

// providerErrors are the error texts a stream can end with: transient ones
// pi-ai retries, permanent ones it does not, and a quota error whose text
// also says 429, which pi-ai's limit rows make permanent (utils/retry.js).
// The retry decision is then observable: a lane that retries the wrong
// ones, or none, diverges from the model.
var providerErrors = []string{
	"overloaded",
	"503 Service Unavailable",
	"socket hang up",
	"invalid api key",
	"400 unsupported parameter: temperature",
	"429 insufficient_quota: You exceeded your current quota",
}

// overflowError is a context overflow (pi-ai utils/overflow.js): its
// settlement prepares an overflow compaction and moves to summary.deciding.
// One provider error in three is this one, so that overflow settlements are
// frequent enough for the simulator to check them.
const overflowError = "prompt is too long: 213462 tokens > 200000 maximum"

// genPlan draws one response from src.
func genPlan(src choice.Source, g genOpts) respPlan {
	p := respPlan{stallAt: -1}
	weights := []int{10, g.errorWeight, g.errorWeight, g.errorWeight, 0}
	if g.deferred {
		weights = []int{0, 0, 0, 0, 1}
	}
	p.end = ending(choice.Weighted(src, "gen-end", weights))
	if p.end == endSetupError {
		p.builders = []builder{func(a *pi.AssistantMessage) pi.Event {
			m := a.Clone()
			m.StopReason, m.ErrorMessage = pi.StopError, pi.Str("connection refused")
			return pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: m}
		}}
		return p
	}
	var blocks [][]builder
	tools := 0
	if !g.deferred {
		n := choice.Range(src, "gen-blocks", 0, g.maxBlocks)
		for b := 0; b < n; b++ {
			kinds := blockKinds
			switch {
			case g.toolBatches:
				kinds = toolHeavyKinds
			case g.midBlockRedaction:
				kinds = blockKindsRedaction
			}
			switch choice.Pick(src, "gen-kind", kinds) {
			case "redacted":
				blocks = append(blocks, genRedacted(src))
			case "redacted-mid-block":
				blocks = append(blocks, genMidBlockRedacted(src))
			case "text":
				blocks = append(blocks, genText(src, false))
			case "thinking":
				blocks = append(blocks, genText(src, true))
			case "tool":
				if g.noTools {
					blocks = append(blocks, genText(src, false))
					continue
				}
				blocks = append(blocks, genTool(src, g, tools))
				tools++
			}
		}
		if tools == 1 && (g.toolBatches || choice.Bool(src, "gen-second-tool")) {
			// a batch of two or more calls half the time: runParallel's
			// interleavings need a second call
			blocks = append(blocks, genTool(src, g, tools))
			tools++
		}
	}
	evs := []builder{func(a *pi.AssistantMessage) pi.Event { return pi.Event{Type: pi.EventStart, Partial: a} }}
	evs = withUsage(src, append(evs, interleave(src, blocks)...))
	switch p.end {
	case endDone:
		reason := pi.StopStop
		if tools > 0 {
			reason = pi.StopToolUse
			if choice.Chance(src, "gen-length", 1, 8) {
				reason = pi.StopLength // the calls' arguments may be cut: pi runs none of them
			}
		}
		evs = append(evs, func(a *pi.AssistantMessage) pi.Event {
			m := a.Clone()
			m.StopReason, m.Usage = reason, pi.Usage{Input: 10, Output: 5, TotalTokens: 15}
			return pi.Event{Type: pi.EventDone, Reason: reason, Message: m}
		})
	case endError:
		text := overflowError
		if !choice.Chance(src, "gen-overflow", 1, 3) {
			text = choice.Pick(src, "gen-error", providerErrors)
		}
		evs = append(evs, func(a *pi.AssistantMessage) pi.Event {
			m := a.Clone()
			m.StopReason, m.ErrorMessage = pi.StopError, pi.Str(text)
			m.Usage = pi.Usage{Input: 10, Output: 1, TotalTokens: 11}
			return pi.Event{Type: pi.EventError, Reason: pi.StopError, Message: m}
		})
	case endDeferred:
		h := deferredHandle(src, g.badHandle)
		evs = append(evs, func(a *pi.AssistantMessage) pi.Event {
			m := a.Clone()
			m.StopReason = pi.StopDeferred
			if h != nil {
				c := *h
				m.Deferred = &c
			}
			return pi.Event{Type: pi.EventDone, Reason: pi.StopDeferred, Message: m}
		})
	case endDisconnect:
		// no terminal event: the producer fails the stream after the last one
	}
	p.builders, p.tools = evs, tools
	if g.stall && len(evs) > 1 && choice.Chance(src, "gen-stall", 1, 3) {
		p.stallAt = choice.Range(src, "gen-stall-at", 1, len(evs)-1)
	}
	return p
}

// interleave merges per-block event lists, keeping each block's order; the
// content index is fixed when the block's start event is built.
func interleave(src choice.Source, blocks [][]builder) []builder {
	var out []builder
	pos := make([]int, len(blocks))
	for {
		var live []int
		for i, b := range blocks {
			if pos[i] < len(b) {
				live = append(live, i)
			}
		}
		if len(live) == 0 {
			return out
		}
		i := live[src.Intn("gen-interleave", len(live))]
		out = append(out, blocks[i][pos[i]])
		pos[i]++
	}
}

func genText(src choice.Source, thinking bool) []builder {
	idx := new(int)
	n := choice.Range(src, "gen-deltas", 0, 3)
	pieces := make([]string, n)
	full := ""
	for i := range pieces {
		pieces[i] = choice.Pick(src, "gen-piece", textPieces)
		full = pi.Concat(full, pieces[i])
	}
	get := func(a *pi.AssistantMessage) string {
		if thinking {
			return a.Content[*idx].(pi.ThinkingContent).Thinking
		}
		return a.Content[*idx].(pi.TextContent).Text
	}
	set := func(a *pi.AssistantMessage, s string) {
		if thinking {
			b := a.Content[*idx].(pi.ThinkingContent)
			b.Thinking = s
			a.Content[*idx] = b
		} else {
			b := a.Content[*idx].(pi.TextContent)
			b.Text = s
			a.Content[*idx] = b
		}
	}
	startT, deltaT, endT := pi.EventTextStart, pi.EventTextDelta, pi.EventTextEnd
	if thinking {
		startT, deltaT, endT = pi.EventThinkingStart, pi.EventThinkingDelta, pi.EventThinkingEnd
	}
	out := []builder{func(a *pi.AssistantMessage) pi.Event {
		*idx = len(a.Content)
		if thinking {
			a.Content = append(a.Content, pi.ThinkingContent{})
		} else {
			a.Content = append(a.Content, pi.TextContent{})
		}
		return pi.Event{Type: startT, ContentIndex: pi.Index(*idx), Partial: a}
	}}
	for _, d := range pieces {
		d := d
		out = append(out, func(a *pi.AssistantMessage) pi.Event {
			set(a, pi.Concat(get(a), d))
			return pi.Event{Type: deltaT, ContentIndex: pi.Index(*idx), Delta: d, Partial: a}
		})
	}
	out = append(out, func(a *pi.AssistantMessage) pi.Event {
		set(a, full)
		return pi.Event{Type: endT, ContentIndex: pi.Index(*idx), Content: full, Partial: a}
	})
	return withSignature(src, out, idx, thinking)
}

// signatures are the values a text or thinking signature takes ("" is
// Anthropic's thinkingSignature before its first signature_delta).
var signatures = []string{"", "sig_1", `{"v":1,"id":"msg_1","phase":"final_answer"}`}

// withSignature draws when the block's signature is written on the live
// partial, as pi-ai's providers do it: never; right after one of the
// block's events is built, so every later event sees it (Google sets it on
// the first part or a later one, google-generative-ai.js
// retainThoughtSignature; OpenAI Responses at the item's end,
// openai-responses-shared.js); and optionally grown again at the end
// (Anthropic starts thinkingSignature at "" and appends signature_delta,
// anthropic-messages.js), so the start snapshot and the end disagree.
func withSignature(src choice.Source, evs []builder, idx *int, thinking bool) []builder {
	if !choice.Chance(src, "gen-sig", 1, 2) {
		return evs
	}
	at := choice.Range(src, "gen-sig-at", 0, len(evs)-1)
	value := choice.Pick(src, "gen-sig-value", signatures)
	grow := at < len(evs)-1 && choice.Chance(src, "gen-sig-grow", 1, 3)
	sign := func(a *pi.AssistantMessage, v string) {
		if thinking {
			b := a.Content[*idx].(pi.ThinkingContent)
			b.ThinkingSignature = pi.Str(v)
			a.Content[*idx] = b
		} else {
			b := a.Content[*idx].(pi.TextContent)
			b.TextSignature = pi.Str(v)
			a.Content[*idx] = b
		}
	}
	out := append([]builder(nil), evs...)
	out[at] = after(evs[at], func(a *pi.AssistantMessage) { sign(a, value) })
	if grow {
		last := len(evs) - 1
		out[last] = after(evs[last], func(a *pi.AssistantMessage) { sign(a, value+"+sig_2") })
	}
	return out
}

// after runs mutate on the live partial once b has built its event; the
// event carries the partial by reference, so it (and every later event)
// sees the mutation, as a provider's in-place write would show.
func after(b builder, mutate func(a *pi.AssistantMessage)) builder {
	return func(a *pi.AssistantMessage) pi.Event {
		ev := b(a)
		mutate(a)
		return ev
	}
}

// redactedThinking is Anthropic's redacted_thinking block as pi-ai maps it
// (anthropic-messages.js): a thinking block complete at thinking_start,
// with a placeholder text, the opaque payload as its signature and
// redacted true, ended without deltas.
func genRedacted(src choice.Source) []builder {
	idx := new(int)
	const placeholder = "[Reasoning redacted]"
	data := choice.Pick(src, "gen-redacted-data", []string{"EmwKAhgBEgy3va3pzix/LafPsn4a", "opaque"})
	return []builder{
		func(a *pi.AssistantMessage) pi.Event {
			*idx = len(a.Content)
			a.Content = append(a.Content, pi.ThinkingContent{Thinking: placeholder, ThinkingSignature: pi.Str(data), Redacted: pi.BoolPtr(true)})
			return pi.Event{Type: pi.EventThinkingStart, ContentIndex: pi.Index(*idx), Partial: a}
		},
		func(a *pi.AssistantMessage) pi.Event {
			return pi.Event{Type: pi.EventThinkingEnd, ContentIndex: pi.Index(*idx), Content: placeholder, Partial: a}
		},
	}
}

// blockKinds are the content blocks a response draws from;
// blockKindsRedaction adds Bedrock's mid-block redaction.
var (
	blockKinds          = []string{"text", "thinking", "tool", "redacted"}
	blockKindsRedaction = []string{"text", "thinking", "tool", "redacted", "redacted-mid-block", "redacted-mid-block"}
	toolHeavyKinds      = []string{"tool", "tool", "tool", "text"}
)

// genMidBlockRedacted is Bedrock Converse's encrypted reasoning
// (api/bedrock-converse-stream.js, handleContentBlockDelta and
// flushRedactedContent): a thinking block starts plain (thinking "",
// thinkingSignature ""), may stream reasoning text, and the first delta
// with redactedContent sets redacted true, resets thinkingSignature and
// streams the placeholder as a thinking_delta; at the block's stop the
// opaque chunks become its thinkingSignature and thinking_end follows. So
// the end's redacted (true) differs from the start's (absent), a shape the
// frame codec must carry to the reduced message.
func genMidBlockRedacted(src choice.Source) []builder {
	idx := new(int)
	const placeholder = "[Reasoning redacted]"
	update := func(a *pi.AssistantMessage, f func(*pi.ThinkingContent)) {
		b := a.Content[*idx].(pi.ThinkingContent)
		f(&b)
		a.Content[*idx] = b
	}
	out := []builder{func(a *pi.AssistantMessage) pi.Event {
		*idx = len(a.Content)
		a.Content = append(a.Content, pi.ThinkingContent{ThinkingSignature: pi.Str("")})
		return pi.Event{Type: pi.EventThinkingStart, ContentIndex: pi.Index(*idx), Partial: a}
	}}
	if choice.Bool(src, "gen-redaction-text-first") {
		d := choice.Pick(src, "gen-piece", textPieces)
		out = append(out, func(a *pi.AssistantMessage) pi.Event {
			update(a, func(b *pi.ThinkingContent) { b.Thinking = pi.Concat(b.Thinking, d) })
			return pi.Event{Type: pi.EventThinkingDelta, ContentIndex: pi.Index(*idx), Delta: d, Partial: a}
		})
	}
	data := choice.Pick(src, "gen-redacted-data", []string{"EmwKAhgBEgy3va3pzix/LafPsn4a", "b3BhcXVl"})
	return append(out,
		func(a *pi.AssistantMessage) pi.Event {
			update(a, func(b *pi.ThinkingContent) {
				b.Redacted, b.ThinkingSignature, b.Thinking = pi.BoolPtr(true), pi.Str(""), pi.Concat(b.Thinking, placeholder)
			})
			return pi.Event{Type: pi.EventThinkingDelta, ContentIndex: pi.Index(*idx), Delta: placeholder, Partial: a}
		},
		func(a *pi.AssistantMessage) pi.Event {
			update(a, func(b *pi.ThinkingContent) { b.ThinkingSignature = pi.Str(data) })
			return pi.Event{Type: pi.EventThinkingEnd, ContentIndex: pi.Index(*idx), Content: a.Content[*idx].(pi.ThinkingContent).Thinking, Partial: a}
		})
}

var toolArgs = []string{`{}`, `{"path":"a.txt"}`, `{"n":[1,2,3],"s":"ü"}`, `{"q":{"deep":true}}`, `{"path":"logo.png"}`}

// textlessArgs are the arguments runRead answers without text: no members
// (no content) and a .png path (an image alone), and
// textlessNames the tool calls that take them.
var (
	textlessArgs  = []string{`{}`, `{"path":"logo.png"}`}
	textlessNames = []string{toolRead, toolRead, toolFinish}
)

// batchNames are the tool-heavy seeds' calls: half of them run (read,
// fetch), half answer at once (write is inactive, ghost unknown), so a
// later call's outcome is often staged behind an earlier call's run.
var batchNames = []string{toolRead, toolFetch, toolWrite, toolGhost}

// namespaces are OpenAI Responses tool namespaces (set when the item is
// created, openai-responses-shared.js); thoughtSignatures are Google's,
// set on the function-call part (google-generative-ai.js).
var (
	namespaces        = []string{"functions", "mcp__files", ""}
	thoughtSignatures = []string{"CiQB0e2Kb7", ""}
)

// genTool draws a tool call the ways pi-ai's providers stream one: empty
// arguments at start and the JSON in deltas (OpenAI, Anthropic), or the
// arguments complete at start, then either no deltas, the whole JSON in one
// delta (Google) or the JSON again from empty in pieces (Anthropic's
// legacy grammar calls); each with an optional namespace and
// thoughtSignature present from the start.
func genTool(src choice.Source, g genOpts, k int) []builder {
	idx := new(int)
	prefix := g.callPrefix
	pool := toolArgs
	if g.textlessResults {
		pool = textlessArgs
	}
	args := choice.Pick(src, "gen-args", pool)
	full, _ := pi.ParseJSON(args)
	completeAtStart := choice.Chance(src, "gen-tool-complete", 1, 3)
	var pieces []string
	if !completeAtStart || choice.Chance(src, "gen-tool-redelta", 1, 2) {
		pieces = cutJSON(src, args)
	}
	names := simToolCallNames
	switch {
	case g.textlessResults:
		names = textlessNames
	case g.toolBatches:
		names = batchNames
	}
	name := choice.Pick(src, "gen-tool-name", names)
	base := pi.ToolCall{ID: prefix + string(rune('a'+k)), Name: name, Arguments: pi.EmptyObject()}
	if completeAtStart {
		base.Arguments = full
	}
	if choice.Chance(src, "gen-namespace", 1, 2) {
		base.Namespace = pi.Str(choice.Pick(src, "gen-namespace-value", namespaces))
	}
	if choice.Chance(src, "gen-thought-sig", 1, 3) {
		base.ThoughtSignature = pi.Str(choice.Pick(src, "gen-thought-sig-value", thoughtSignatures))
	}
	sofar := new(string)
	out := []builder{func(a *pi.AssistantMessage) pi.Event {
		*idx = len(a.Content)
		a.Content = append(a.Content, base)
		return pi.Event{Type: pi.EventToolCallStart, ContentIndex: pi.Index(*idx), Partial: a}
	}}
	for _, d := range pieces {
		d := d
		out = append(out, func(a *pi.AssistantMessage) pi.Event {
			*sofar += d
			b := a.Content[*idx].(pi.ToolCall)
			b.Arguments = frames.ParseStreamingJSON(*sofar)
			a.Content[*idx] = b
			return pi.Event{Type: pi.EventToolCallDelta, ContentIndex: pi.Index(*idx), Delta: d, Partial: a}
		})
	}
	out = append(out, func(a *pi.AssistantMessage) pi.Event {
		b := a.Content[*idx].(pi.ToolCall)
		b.Arguments = full
		a.Content[*idx] = b
		tc := b
		return pi.Event{Type: pi.EventToolCallEnd, ContentIndex: pi.Index(*idx), ToolCall: &tc, Partial: a}
	})
	return out
}

// cutJSON cuts the raw JSON into 1..3 deltas at character boundaries (a
// provider's JSON deltas are whole characters).
func cutJSON(src choice.Source, args string) []string {
	cuts := choice.Range(src, "gen-cuts", 0, 2)
	var pieces []string
	rest := args
	for c := 0; c < cuts && len([]rune(rest)) > 1; c++ {
		rs := []rune(rest)
		at := choice.Range(src, "gen-cut-at", 1, len(rs)-1)
		pieces, rest = append(pieces, string(rs[:at])), string(rs[at:])
	}
	return append(pieces, rest)
}

// withUsage draws the usage a response reports before it ends: the input
// side known at start (Anthropic's message_start), and output counts
// written on the live partial between events (message_delta), which the
// start frame must not pick up unless the start event is read after them.
func withUsage(src choice.Source, evs []builder) []builder {
	out := append([]builder(nil), evs...)
	if choice.Chance(src, "gen-usage-start", 1, 2) {
		out[0] = after(evs[0], func(a *pi.AssistantMessage) {
			a.Usage.Input, a.Usage.CacheRead, a.Usage.TotalTokens = 10, 3, 13
		})
	}
	for i := 1; i < len(out); i++ {
		if choice.Chance(src, "gen-usage-update", 1, 4) {
			out[i] = after(evs[i], func(a *pi.AssistantMessage) {
				a.Usage.Output++
				a.Usage.TotalTokens = a.Usage.Input + a.Usage.CacheRead + a.Usage.Output
			})
		}
	}
	return out
}

// errDisconnect is the transport failure of endDisconnect.
var errDisconnect = errors.New("socket hang up")

// simProviderImpl is lane.Provider: each Stream starts a producer actor in
// the calling (lane) process, so the stream dies with the process.
type simProviderImpl struct{ r *runner }

func (p simProviderImpl) Stream(req lane.Request) lane.Stream {
	return p.r.openStream(req)
}

// queued is one produced event (or a transport failure).
type queued struct {
	ev  pi.Event
	err error
}

// deadStream serves a crashed process (it never gets to read it).
type deadStream struct{}

func (deadStream) Next() (pi.Event, error) { return pi.Event{}, errDeadProcess }

// simStream is one provider response in flight.
type simStream struct {
	r        *runner
	req      lane.Request
	plan     respPlan
	acc      *pi.AssistantMessage
	queue    []queued
	wake     env.Completer // consumer waiting for the producer
	consumed int
	ended    bool // terminal event (or failure) consumed
	settled  bool // its settlement committed
	gen      int  // the process generation that opened it
	obs      *modelframes.Observer
	last     *pi.AssistantMessage // partial of the latest consumed event
	// observed[i] is the model observation after consumed event i.
	observed []string
	// startRedacted is each thinking block's redacted as its start's
	// partial carried it (rowThinkingShape)
	startRedacted map[int]bool
}

func (r *runner) openStream(req lane.Request) lane.Stream {
	if !r.alive() {
		return deadStream{}
	}
	if r.structural.keys[lane.FramesAddr(req.OperationID, req.ResponseEntryID).Key] {
		return r.structural.open(req)
	}
	plan := r.nextPlan(req)
	s := &simStream{r: r, req: req, plan: plan, obs: modelframes.NewObserver(),
		acc: &pi.AssistantMessage{Content: []pi.Content{}, API: simAPI, Provider: simProvider, Model: simModel,
			StopReason: pi.StopPending, Timestamp: float64(r.w.Now().UnixMilli())}}
	r.onStreamOpen(s)
	r.w.Go("provider", s.produce)
	return s
}

// produce pushes the plan's events, pausing at random (every pause is a
// scheduling point at which the lane may consume, commit or crash).
func (s *simStream) produce() {
	w := s.r.w
	for i, b := range s.plan.builders {
		switch choice.Weighted(w, "provider-pace", []int{3, 2, 1}) {
		case 1:
			w.Yield()
		case 2:
			w.Sleep(time.Duration(choice.Range(w, "provider-ms", 1, 20)) * time.Millisecond)
		}
		if s.r.p.pollCrash && s.req.Deferred != nil && i > 1 && s.r.poller.crashes < maxPollCrashes && choice.Chance(w, "poll-crash", 1, 3) {
			s.r.poller.crashes++
			// a crash aimed at the middle of a deferred poll (an orphaned
			// unknown-outcome poll is what replacement is about)
			r := s.r
			r.w.Root().Go("poll-crasher", func() { r.crashAndRestart("crash during poll of", true) })
		}
		if i == s.plan.stallAt {
			s.r.fault("provider stall")
			w.Sleep(10 * time.Second)
		}
		if s.req.Abort != nil && s.req.Abort.Done() {
			m := s.acc.Clone()
			m.StopReason, m.ErrorMessage = pi.StopAborted, pi.Str("Request was aborted")
			s.push(queued{ev: pi.Event{Type: pi.EventError, Reason: pi.StopAborted, Message: m}})
			return
		}
		s.push(queued{ev: b(s.acc)})
	}
	if s.plan.end == endDisconnect {
		s.r.fault("provider disconnect")
		s.push(queued{err: errDisconnect})
	}
}

func (s *simStream) push(q queued) {
	s.queue = append(s.queue, q)
	if s.wake != nil {
		s.wake.Resolve(nil)
		s.wake = nil
	}
}

// Next hands the lane the oldest queued event; the partial it carries is
// the shared accumulator, possibly ahead of the event. The model observer
// sees the partial exactly as the encoder will read it (nothing runs between
// Next returning and the encoder reading it).
func (s *simStream) Next() (pi.Event, error) {
	for len(s.queue) == 0 {
		s.wake = s.r.w.NewFuture("provider-next")
		_ = s.wake.Wait()
	}
	q := s.queue[0]
	s.queue = s.queue[1:]
	if q.err != nil {
		s.ended = true
		s.r.onStreamEnd(s)
		s.r.ls.transportFailure(s.last, q.err)
		return pi.Event{}, q.err
	}
	ev := q.ev
	if ev.Type == pi.EventDone || ev.Type == pi.EventError {
		s.ended = true
		s.r.onStreamEnd(s)
		s.r.ls.providerEvent(&ev)
		return ev, nil
	}
	c := ev
	c.Partial = ev.Partial.Clone()
	s.last = c.Partial
	s.noteThinkingShape(&c)
	s.r.ls.providerEvent(&c)
	s.obs.Observe(&c)
	s.observed = append(s.observed, string(s.r.msgJSON(s.obs.Message())))
	s.consumed++
	return ev, nil
}

func marshalMsg(m *pi.AssistantMessage) string {
	if m == nil {
		return "null"
	}
	return string(m.AppendJSON(nil))
}

// msgJSON is marshalMsg's bytes in the run's scratch buffer, valid until
// its next call: the marshals at every provider event and committed frame
// no longer grow a fresh buffer each (AppendJSON from nil doubles its way
// up to the message's size).
func (r *runner) msgJSON(m *pi.AssistantMessage) []byte {
	if m == nil {
		r.msgBuf = append(r.msgBuf[:0], "null"...)
	} else {
		r.msgBuf = m.AppendJSON(r.msgBuf[:0])
	}
	return r.msgBuf
}

// maxPollCrashes bounds the crashes aimed at deferred polls in one run.
// Faults must end for recovery liveness to be checkable: unbounded poll
// crashes could keep replacing the poll forever.
const maxPollCrashes = 4

// rowThinkingShape records a thinking block whose thinking_end carries
// another redacted than its thinking_start's partial did
// (orderRedactedAtEnd; genMidBlockRedacted), as the encoder reads them.
const (
	rowThinkingShape   = "thinking-shape"
	orderRedactedAtEnd = "redacted-differs-at-end"
)

// noteThinkingShape notes a consumed thinking event for rowThinkingShape.
func (s *simStream) noteThinkingShape(ev *pi.Event) {
	if ev.Type != pi.EventThinkingStart && ev.Type != pi.EventThinkingEnd {
		return
	}
	i := ev.ContentIndex.N
	if ev.ContentIndex.Invalid != "" || i < 0 || i >= len(ev.Partial.Content) {
		return
	}
	b, ok := ev.Partial.Content[i].(pi.ThinkingContent)
	if !ok {
		return
	}
	redacted := b.Redacted != nil && *b.Redacted
	if ev.Type == pi.EventThinkingStart {
		if s.startRedacted == nil {
			s.startRedacted = map[int]bool{}
		}
		s.startRedacted[i] = redacted
		return
	}
	if start, ok := s.startRedacted[i]; ok && start != redacted {
		s.r.race(rowThinkingShape, orderRedactedAtEnd)
	}
}
