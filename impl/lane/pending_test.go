package lane

import (
	"errors"
	"fmt"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// session/session.ts StorageBackedSessionMutator.commit: a response still
// marked pending is refused with "Cannot persist a pending assistant
// message" before storage sees it, and the harness faults (nothing settles).
func TestPendingResponseIsNeverPersisted(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		a := newAcc()
		h.provider.add(seq(a.start(), a.textStart(0), a.textEnd(0, "x"), a.done(pi.StopPending)))
		l := h.open()
		op := h.start(1)
		before, err := h.store.Entries()
		require.NoError(t, err)
		_, err = l.Drive(StepOptions{})
		require.Error(t, err)
		require.True(t, errors.Is(err, ErrPendingAssistant), "%v", err)
		require.Equal(t, "Cannot persist a pending assistant message", ErrPendingAssistant.Error())
		var hf *HarnessFault
		require.ErrorAs(t, l.Fault(), &hf)
		after, err := h.store.Entries()
		require.NoError(t, err)
		require.Len(t, after, len(before), "a pending response was persisted")
		require.Equal(t, LeafAssistantEffectPending, h.stateOf(op).At)
	})
}

// runtime/drive/recovery.ts interruptedAssistantMessage: without a committed
// partial the synthetic message is the literal {role, content, api,
// provider, model, usage, stopReason, errorMessage, timestamp}; the entry
// keeps that key order (errorMessage before timestamp).
func TestNoFramesSyntheticKeyOrder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		_, resp, _ := crashRun(t, h, 3, helloScript(), 2)
		_, err := h.lane.Step(StepOptions{})
		require.NoError(t, err)
		es, err := h.store.Entries()
		require.NoError(t, err)
		raw := string(es[len(es)-1].Entry.Raw)
		require.Contains(t, raw, `"id":"`+resp+`"`)
		require.Contains(t, raw, `{"role":"assistant","content":[],"api":"unknown","provider":"openai","model":"gpt-test","usage":`)
		require.Contains(t, raw, `,"stopReason":"error","errorMessage":"`+InterruptedWarning+`","timestamp":1700000000000}}`)
	})
}

// runtime/progress.ts readAssistantFrames: pages of 1000 until a short page,
// with no total cap; the default lane config reads every committed frame
// (the old default stopped at 100_000 and added a diagnostic).
func TestDefaultFrameBudgetIsPisNoCap(t *testing.T) {
	require.Equal(t, 0, DefaultFrameBudget)
	st := backends[0].open(t, newClock())
	const n = 100_001
	ws := make([]store.Write, 0, n)
	for i := 0; i < n; i++ {
		ws = append(ws, store.AppendListRaw(FramesAddr("op", "resp"), []byte(`{"type":"text_delta","contentIndex":0,"delta":"x"}`)))
	}
	_, err := st.Commit(ws)
	require.NoError(t, err)
	reader := func(budget, page int) *Lane {
		return &Lane{cfg: Config{Storage: st, FrameBudget: budget, FramePageSize: page}}
	}
	fs, truncated, err := reader(DefaultFrameBudget, 0).readFrames("op", "resp")
	require.NoError(t, err)
	require.False(t, truncated)
	require.Len(t, fs, n)
	_, truncated, err = reader(10, 0).readFrames("op", "resp")
	require.NoError(t, err)
	require.True(t, truncated, "a positive budget stays an option")
	// a smaller page size follows the cursor over as many pages: the same
	// frames, the budget counted across pages
	fs, truncated, err = reader(10, 3).readFrames("op", "resp")
	require.NoError(t, err)
	require.True(t, truncated)
	require.Len(t, fs, 10)
}

// Config.FramePageSize changes how many reads recovery takes, never what
// it reads: a list of 7 frames read 2 or 7 at a time is the whole list.
func TestFramePageSizeReadsEveryPage(t *testing.T) {
	st := backends[0].open(t, newClock())
	var ws []store.Write
	for i := 0; i < 7; i++ {
		ws = append(ws, store.AppendListRaw(FramesAddr("op", "resp"), []byte(fmt.Sprintf(`{"type":"text_delta","contentIndex":0,"delta":"%d"}`, i))))
	}
	_, err := st.Commit(ws)
	require.NoError(t, err)
	for _, page := range []int{1, 2, 6, 7, 0} {
		fs, truncated, err := (&Lane{cfg: Config{Storage: st, FramePageSize: page}}).readFrames("op", "resp")
		require.NoError(t, err)
		require.False(t, truncated)
		require.Len(t, fs, 7, "page size %d", page)
		require.Equal(t, "6", fs[6].Prop("delta").Str(), "page size %d", page)
	}
}

// execution/assistant.ts consumeAssistantStream: the protocol defects the
// harness throws (and faults on), with pi's exact messages.
func TestProtocolDefectStringsArePis(t *testing.T) {
	for _, c := range []struct {
		name string
		s    func(a *acc) *script
		want string
	}{
		{"update before start", func(a *acc) *script { return seq(a.textStart(0)) }, "Assistant message stream emitted text_start before start"},
		{"second start", func(a *acc) *script { return seq(a.start(), a.start()) }, "Assistant message stream emitted more than one start event"},
		{"done before start", func(a *acc) *script { return seq(a.done(pi.StopStop)) }, "Assistant message stream emitted done before start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, backends[0])
			h.provider.add(c.s(newAcc()))
			l := h.open()
			h.start(1)
			_, err := l.Drive(StepOptions{})
			var hf *HarnessFault
			require.ErrorAs(t, err, &hf)
			require.Equal(t, c.want, hf.Cause.Error())
		})
	}
}

// session/fork.ts createForkSnapshot (scope "tree") and
// validateForkSourceSnapshot: entries keep their seqs; values are renumbered
// after the last entry (tip, lane config, a rebuilt empty lane state, then
// copied values) and nextSeq continues from there; the lane state no longer
// names the source's last operation (its result is not forked).
func TestIdleForkRebuildsLaneStateAndRenumbers(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	op := h.start(1)
	h.provider.add(helloScript())
	_, err := l.Drive(StepOptions{})
	require.NoError(t, err)
	require.Contains(t, h.resultOf(op), `"status":"completed"`)
	ws, next, err := ForkWrites(h.store, ForkOptions{})
	require.NoError(t, err)
	es, err := h.store.Entries()
	require.NoError(t, err)
	last := es[len(es)-1].Seq
	var values []string
	for i, w := range ws {
		if i < len(es) {
			require.Equal(t, es[i].Seq, w.Seq, "entries keep their seqs")
			continue
		}
		require.Equal(t, last+int64(i-len(es)+1), w.Seq, "values follow the last entry")
		values = append(values, w.Namespace+"="+string(w.Value))
	}
	require.Equal(t, []string{
		`pi.branch.tip="` + es[len(es)-1].Entry.ID + `"`,
		`pi.lane.config={"model":{"provider":"openai","modelId":"gpt-test"},"thinkingLevel":"off","activeToolNames":[]}`,
		`pi.lane.state={"currentOperationId":null,"lastOperationId":null,"inbox":[]}`,
	}, values)
	require.Equal(t, last+4, next)
	_, _, err = ForkWrites(h.store, ForkOptions{UnconfiguredLanes: true})
	require.NoError(t, err)

	// a lane state without its tip is refused, as validateForkSourceSnapshot does
	_, err = h.store.Commit([]store.Write{store.SetValueRaw(LaneStateAddr("other"), []byte(`{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`))})
	require.NoError(t, err)
	_, _, err = ForkWrites(h.store, ForkOptions{})
	require.EqualError(t, err, `Source session branch "other" is missing branch.tip`)
}

// session/fork.ts validateForkSourceSnapshot: a lane state without lane config is an
// incomplete lane; sessions frameproof's lane wrote before it wrote
// pi.lane.config fork only with ForkOptions.UnconfiguredLanes.
func TestForkRefusesUnconfiguredLaneByDefault(t *testing.T) {
	h := newHarness(t, backends[0])
	_, err := h.store.Commit([]store.Write{
		store.SetValueRaw(BranchTipAddr("main"), []byte("null")),
		store.SetValueRaw(LaneStateAddr("main"), []byte(`{"currentOperationId":null,"lastOperationId":"op-old","inbox":[]}`)),
	})
	require.NoError(t, err)
	_, _, err = ForkWrites(h.store, ForkOptions{})
	require.EqualError(t, err, `Source session branch "main" has incomplete lane state`)
	ws, _, err := ForkWrites(h.store, ForkOptions{UnconfiguredLanes: true})
	require.NoError(t, err)
	require.Equal(t, `{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`, string(ws[len(ws)-1].Value))
}
