package lane

import (
	"errors"
	"reflect"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

func (h *harness) enqueued() []FrameRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []FrameRecord
	for _, r := range h.frames {
		if r.Outcome == FrameEnqueued {
			out = append(out, r)
		}
	}
	return out
}

func (h *harness) outcomes(o FrameOutcome) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.frames {
		if r.Outcome == o {
			n++
		}
	}
	return n
}

func parseFrames(t *testing.T, rs []FrameRecord) []pi.Frame {
	var out []pi.Frame
	for _, r := range rs {
		f, err := pi.ParseFrame(string(r.Frame))
		require.NoError(t, err)
		out = append(out, *f)
	}
	return out
}

func frameTypes(fs []pi.Frame) []pi.FrameType {
	var out []pi.FrameType
	for _, f := range fs {
		out = append(out, f.Type)
	}
	return out
}

// runAheadScript: the shared partial already holds "ab" when text_start is
// encoded, so both deltas are covered.
func runAheadScript() *script {
	a := newAcc()
	return seq(a.start(),
		func() pi.Event {
			a.m.Content = append(a.m.Content, pi.TextContent{Text: "ab"})
			return pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: a.m}
		},
		func() pi.Event {
			return pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "a", Partial: a.m}
		},
		func() pi.Event {
			return pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: "b", Partial: a.m}
		},
		a.textEnd(0, "ab"), a.done(pi.StopStop))
}

// Required: one per-stream encoder handles shared live partials and
// synchronous event bursts without duplicate content.
func TestRequiredEncoderSharedPartialBurstNoDuplicates(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		h.provider.add(runAheadScript())
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		fs := parseFrames(t, h.enqueued())
		require.Equal(t, []pi.FrameType{pi.FrameStart, pi.FrameTextStart, pi.FrameTextEnd}, frameTypes(fs))
		require.Equal(t, "ab", fs[1].Block.(pi.TextContent).Text)
		require.Empty(t, fs[0].Partial.Content, "start frame has empty content")
		m, err := frames.Reduce(fs)
		require.NoError(t, err)
		require.Equal(t, "ab", textOf(m))
		require.Equal(t, "ab", textOf(h.entryMessage(h.provider.requests[0].ResponseEntryID)))
	})
}

// Required: each event appends zero or one frame, with covered queued deltas
// appending nothing.
func TestRequiredEachEventAppendsZeroOrOneFrame(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		h.provider.add(runAheadScript())
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		per := map[int]int{}
		for _, r := range h.enqueued() {
			per[r.EventIndex]++
		}
		for i, n := range per {
			require.LessOrEqual(t, n, 1, "event %d appended %d frames", i, n)
		}
		require.Zero(t, per[2], "covered delta 'a' appended a frame")
		require.Zero(t, per[3], "covered delta 'b' appended a frame")
		require.Equal(t, 3, h.outcomes(FrameCommitted))
	})
}

// Required: done/error append nothing, including pre-generation error.
func TestRequiredTerminalEventsAppendNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, tc := range []struct {
			name string
			s    func() *script
		}{
			{"done", helloScript},
			{"error", func() *script {
				a := newAcc()
				return seq(a.start(), a.textStart(0), a.textDelta(0, "x"), a.fail(pi.StopError, "bad request"))
			}},
			{"pre-generation error", func() *script { return seq(newAcc().fail(pi.StopError, "connect ECONNREFUSED")) }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h := newHarness(t, b)
				l := h.open()
				op := h.start(1)
				h.provider.add(tc.s())
				_, err := l.Drive(StepOptions{})
				require.NoError(t, err)
				for _, r := range h.enqueued() {
					require.NotContains(t, []pi.EventType{pi.EventDone, pi.EventError}, r.EventType)
				}
				resp := h.provider.requests[0].ResponseEntryID
				require.Empty(t, h.frameList(op, resp))
				if tc.name == "pre-generation error" {
					require.Empty(t, h.enqueued())
					require.Equal(t, []string{"lane_created", "run_start", "message_start", "message_end", "entry_added", "turn_start", "message_end", "entry_added", "usage", "turn_end", "run_end"}, h.eventTypes())
					require.Equal(t, 1, h.hookRuns, "after_response runs on the setup-error path")
					require.Equal(t, pi.StopError, h.entryMessage(resp).StopReason)
				}
			})
		}
	})
}

func interleavedScript() *script {
	a := newAcc()
	return seq(a.start(), a.textStart(0), a.toolStart(1, "call_1", "read"), a.textDelta(0, "he"),
		a.toolDelta(1, `{"pa`), a.thinkStart(2), a.textDelta(0, "llo"), a.thinkDelta(2, "hmm"), a.toolDelta(1, `th":"a"}`),
		a.toolEnd(1, `{"path":"a"}`), a.textEnd(0, "hello"), a.done(pi.StopToolUse))
}

// Required: interleaved content indexes preserve sequence.
func TestRequiredInterleavedContentIndexesPreserveSequence(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		h.gated.failAt = h.gated.commits + 13 // the settlement commit fails: frames stay committed
		h.provider.add(interleavedScript())
		_, err := l.Drive(StepOptions{})
		require.Error(t, err)
		resp := h.provider.requests[0].ResponseEntryID
		els := h.frameList(op, resp)
		enq := h.enqueued()
		require.Len(t, els, len(enq))
		var stored []pi.Frame
		for i, e := range els {
			require.JSONEq(t, string(enq[i].Frame), string(e.Value), "element %d (seq %d) out of event order", i, e.Seq)
			f, err := pi.ParseFrame(string(e.Value))
			require.NoError(t, err)
			stored = append(stored, *f)
			if i > 0 {
				require.Greater(t, e.Seq, els[i-1].Seq)
				require.Greater(t, enq[i].EventIndex, enq[i-1].EventIndex)
			}
		}
		m, err := frames.Reduce(stored)
		require.NoError(t, err)
		require.Equal(t, "hello", textOf(m))
		require.Equal(t, "hmm", m.Content[2].(pi.ThinkingContent).Thinking)
		require.Equal(t, `{"path":"a"}`, m.Content[1].(pi.ToolCall).Arguments.String())
	})
}

// Required: provider loop does not await individual frame writes.
func TestRequiredProviderLoopDoesNotAwaitFrameWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		gate := env.Goroutines{}.NewFuture("gate")
		h.gated.mu.Lock()
		h.gated.gate, h.gated.match = gate, isFrameAppend
		h.gated.mu.Unlock()
		s := helloScript()
		var updatesWhileParked int
		s.before = func(i int) {
			if i == len(s.events)-1 {
				// Every frame commit is still parked, yet all updates were delivered.
				require.Empty(t, h.frameList(op, h.provider.requests[0].ResponseEntryID))
				for _, e := range h.eventTypes() {
					if e == "message_update" {
						updatesWhileParked++
					}
				}
				gate.Resolve(nil)
			}
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, 4, updatesWhileParked)
	})
}

// Required: frame appends enqueue synchronously before the next provider event.
func TestRequiredFrameAppendsEnqueueBeforeNextProviderEvent(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		s := interleavedScript()
		seen := map[int]int{}
		s.before = func(i int) { seen[i] = len(h.enqueued()) }
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		enq := h.enqueued()
		for i, n := range seen {
			want := 0
			for _, r := range enq {
				if r.EventIndex < i {
					want++
				}
			}
			require.Equal(t, want, n, "before provider event %d", i)
		}
	})
}

// Required: only the latest promise reference is retained.
func TestRequiredOnlyLatestPromiseRetained(t *testing.T) {
	typ := reflect.TypeOf(progress{})
	futures := 0
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		switch f.Type.Kind() {
		case reflect.Slice, reflect.Map, reflect.Chan, reflect.Array:
			t.Fatalf("progress.%s is a %s: no array of promises allowed", f.Name, f.Type.Kind())
		}
		if f.Type == reflect.TypeOf((*env.Future)(nil)).Elem() {
			futures++
		}
	}
	require.Equal(t, 1, futures)
	// Behaviour: the retained future is the last write's.
	h := newHarness(t, backends[0])
	l := h.open()
	h.start(1)
	p := l.openProgress("op", "resp")
	p.write(&pi.Frame{Type: pi.FrameStart, Partial: newAcc().m}, 0, pi.EventStart)
	first := p.latest
	p.write(&pi.Frame{Type: pi.FrameTextDelta, ContentIndex: pi.Index(0), Delta: "x"}, 1, pi.EventTextDelta)
	require.NotSame(t, first, p.latest)
	require.NoError(t, p.latest.Wait())
	require.True(t, first.Done(), "FIFO: the latest settling implies the earlier settled")
}

// Required: awaiting the latest promise implies all earlier writes completed.
func TestRequiredDrainImpliesAllEarlierWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		gate := env.Goroutines{}.NewFuture("gate")
		h.gated.mu.Lock()
		h.gated.gate, h.gated.match = gate, isFrameAppend
		h.gated.mu.Unlock()
		s := interleavedScript()
		s.before = func(i int) {
			if i == len(s.events)-1 {
				gate.Resolve(nil)
			}
		}
		var committedAtHook, enqueuedAtHook int
		h.hook = func(m *pi.AssistantMessage) (*pi.AssistantMessage, error) {
			committedAtHook, enqueuedAtHook = h.outcomes(FrameCommitted), len(h.enqueued())
			return m, nil
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Positive(t, enqueuedAtHook)
		require.Equal(t, enqueuedAtHook, committedAtHook)
	})
}

// Required: bounded output bounds queued frame memory.
func TestRequiredBoundedOutputBoundsQueuedFrameMemory(t *testing.T) {
	for _, n := range []int{10, 100, 400} {
		h := newHarness(t, backends[0])
		l := h.open()
		h.start(1)
		gate := env.Goroutines{}.NewFuture("gate")
		h.gated.gate, h.gated.match = gate, isFrameAppend
		a := newAcc()
		evs := []evFn{a.start(), a.textStart(0)}
		const chunk = "0123456789"
		for i := 0; i < n; i++ {
			evs = append(evs, a.textDelta(0, chunk))
		}
		evs = append(evs, a.done(pi.StopLength))
		s := seq(evs...)
		queued := 0
		s.before = func(i int) {
			if i == len(evs)-1 {
				for _, r := range h.enqueued() {
					queued += len(r.Frame)
				}
				gate.Resolve(nil)
			}
		}
		h.provider.add(s)
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		output := n * len(chunk)
		// Per frame overhead is constant (type, index, quotes); a full partial
		// per event would be quadratic in n.
		const perFrame, fixed = 64, 512
		require.LessOrEqual(t, queued, output+perFrame*(n+2)+fixed, "n=%d queued=%d", n, queued)
	}
}

// Required: storage failure prevents after_response and faults the harness.
func TestRequiredStorageFailurePreventsAfterResponseAndFaults(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		h.gated.failAt = h.gated.commits + 3 // intent, start frame, then the text_start frame fails
		h.provider.add(helloScript())
		_, err := l.Drive(StepOptions{})
		var hf *HarnessFault
		require.True(t, errors.As(err, &hf), "got %v", err)
		require.Zero(t, h.hookRuns)
		require.NotContains(t, h.responseEventTypes(), "message_end")
		require.NotContains(t, h.responseEventTypes(), "entry_added")
		es, _ := h.store.Entries()
		require.Len(t, es, 1, "only the user entry")
		require.Equal(t, LeafAssistantEffectPending, h.stateOf(op).At)
		// No later settlement commits in this process.
		h.gated.failAt = 0
		_, err = l.Step(StepOptions{})
		require.ErrorAs(t, err, &hf)
		es, _ = h.store.Entries()
		require.Len(t, es, 1)
	})
}
