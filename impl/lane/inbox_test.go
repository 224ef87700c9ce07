package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// txShape is the telemetry of the commits since the last resetEvents.
func (h *harness) txShape() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.tele {
		out = append(out, r.Kind+" "+r.Op+" "+r.Namespace+":"+r.Key)
	}
	return out
}

// entryParent is the stored parentId of entry id ("" for null).
func (h *harness) entryParent(id string) string {
	entries, err := h.store.Entries()
	require.NoError(h.t, err)
	for _, e := range entries {
		if e.Entry.ID == id {
			if e.Entry.ParentID == nil {
				return ""
			}
			return *e.Entry.ParentID
		}
	}
	h.t.Fatalf("no entry %s", id)
	return ""
}

func (h *harness) inboxJSON() string {
	ls, err := h.store.GetValue(LaneStateAddr("main"))
	require.NoError(h.t, err)
	v, err := pi.ParseJSON(string(ls.Value))
	require.NoError(h.t, err)
	return string(v.Prop("inbox").AppendJSON(nil))
}

// runtime/drive/boundary.ts planBoundaryInbox (from checkpoint.ts
// runCheckpoint, need_assistant): the first queued steer item becomes an
// entry after the tip and the step's trigger; followUp and nextRun items
// stay queued. The TX: insert, delete the pending value, branch tip, op
// state, lane state; then the entry's lifecycle and queue_update
// (boundaryPlacementEvents).
func TestBoundaryPlacesFirstSteerItem(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		_, err = l.Step(StepOptions{}) // the initial checkpoint
		require.NoError(t, err)
		f := h.enqueue(QueueFollowUp, "f")
		s1 := h.enqueue(QueueSteer, "s1")
		s2 := h.enqueue(QueueSteer, "s2")
		n := h.enqueue(QueueNextRun, "n")
		tip := *l.view.tip
		h.resetEvents()
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepProgress, r.Kind)
		require.Equal(t, []string{"entry  :", "value delete pi.pending.entry:" + s1, "value set pi.branch.tip:main",
			"value set pi.op.state:" + op, "value set pi.lane.state:main"}, h.txShape())
		require.Equal(t, tip, h.entryParent(s1))
		st := h.stateOf(op)
		require.Equal(t, LeafAssistantReady, st.At)
		require.Equal(t, s1, st.Gen.TriggerEntryID)
		require.Equal(t, `[{"entryId":"`+f+`","kind":"followUp"},{"entryId":"`+s2+`","kind":"steer"},{"entryId":"`+n+`","kind":"nextRun"}]`, h.inboxJSON())
		require.Equal(t, []string{"message_start", "message_end", "entry_added", "queue_update"}, h.eventTypes())
		q := h.events[3].Queues.Array()
		require.Len(t, q, 3)
		require.Equal(t, f, q[0].Prop("entryId").Str())
		require.Equal(t, "s2", q[1].Prop("message").Prop("content").Array()[0].Prop("text").Str())
	})
}

// planBoundaryInbox with settings.steeringMode "all" places every queued
// steer item, chained in inbox order; the last is the trigger.
func TestBoundaryPlacesAllSteerItemsWhenSteeringModeAll(t *testing.T) {
	h := newHarness(t, backends[0])
	l := h.open()
	opts := defaultRun(1)
	settings, err := pi.ParseJSON(`{"steeringMode":"all"}`)
	require.NoError(t, err)
	opts.Settings = settings
	op, err := l.StartRun(opts)
	require.NoError(t, err)
	_, err = l.Step(StepOptions{})
	require.NoError(t, err)
	s1 := h.enqueue(QueueSteer, "s1")
	s2 := h.enqueue(QueueSteer, "s2")
	_, err = l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, s1, h.entryParent(s2))
	require.Equal(t, s2, h.stateOf(op).Gen.TriggerEntryID)
	require.Equal(t, `[]`, h.inboxJSON())
}

// checkpoint.ts runCheckpoint → finishRunBoundary (may_finish): with no
// steer queued, the first followUp item is placed and the run goes on
// with an assistant step triggered by it; the next boundary, with nothing
// queued, finishes the run at the new tip.
func TestMayFinishBoundaryPlacesFollowUpAndContinues(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(3)
		f := h.enqueue(QueueFollowUp, "more")
		h.provider.add(helloScript(), helloScript())
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepSettled, r.Kind)
		require.Len(t, h.provider.requests, 2)
		first, second := h.provider.requests[0].ResponseEntryID, h.provider.requests[1].ResponseEntryID
		require.Equal(t, first, h.entryParent(f))
		require.Equal(t, f, h.entryParent(second))
		require.Contains(t, h.resultOf(op), `"tipId":"`+second+`"`)
		require.Equal(t, `[]`, h.inboxJSON())
		require.Contains(t, h.eventTypes(), "queue_update")
	})
}

// runtime/lane.ts acceptRun with selectAcceptedInbox: a new run takes every
// nextRun item and the first steer and followUp items, in inbox order,
// chained before its prompt entry; the rest stays queued. The TX: the
// captured inserts, the prompt's insert, the pending deletes, branch tip,
// op meta, op state, lane state; events run_start, each entry's lifecycle,
// queue_update.
func TestRunAcceptanceCapturesQueuedInput(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1) // a first run acquires the lane
		h.provider.add(helloScript())
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		tip := *l.view.tip
		n := h.enqueue(QueueNextRun, "n")
		s1 := h.enqueue(QueueSteer, "s1")
		s2 := h.enqueue(QueueSteer, "s2")
		f := h.enqueue(QueueFollowUp, "f")
		h.resetEvents()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		user := *l.view.tip
		require.Equal(t, []string{"entry  :", "entry  :", "entry  :", "entry  :",
			"value delete pi.pending.entry:" + n, "value delete pi.pending.entry:" + s1, "value delete pi.pending.entry:" + f,
			"value set pi.branch.tip:main", "value set pi.op.meta:" + op, "value set pi.op.state:" + op, "value set pi.lane.state:main"}, h.txShape())
		require.Equal(t, tip, h.entryParent(n))
		require.Equal(t, n, h.entryParent(s1))
		require.Equal(t, s1, h.entryParent(f))
		require.Equal(t, f, h.entryParent(user))
		require.Equal(t, `[{"entryId":"`+s2+`","kind":"steer"}]`, h.inboxJSON())
		lifecycle := []string{"message_start", "message_end", "entry_added"}
		want := append([]string{"run_start"}, lifecycle...)
		want = append(append(append(append(want, lifecycle...), lifecycle...), lifecycle...), "queue_update")
		require.Equal(t, want, h.eventTypes())
	})
}

// planBoundaryInbox's load: a queued item without its pending value faults
// with "Pending <kind> entry <id> is missing its payload", and a steer
// item whose value is not a message with "Queued <kind> entry <id> is not
// a message" (SessionInvariantError).
func TestBoundaryFaultsOnBadQueuedPayload(t *testing.T) {
	for _, tc := range []struct{ pending, want string }{
		{"", "Pending steer entry s9 is missing its payload"},
		{`{"type":"custom","customType":"note"}`, "Queued steer entry s9 is not a message"},
	} {
		h := newHarness(t, backends[0])
		l := h.open()
		op, err := l.StartRun(defaultRun(1))
		require.NoError(t, err)
		_, err = l.Step(StepOptions{})
		require.NoError(t, err)
		ws := []store.Write{store.SetValueRaw(LaneStateAddr("main"),
			[]byte(`{"currentOperationId":"`+op+`","lastOperationId":null,"inbox":[{"entryId":"s9","kind":"steer"}]}`))}
		if tc.pending != "" {
			ws = append(ws, store.SetValueRaw(PendingEntryAddr("s9"), []byte(tc.pending)))
		}
		_, err = h.store.Commit(ws)
		require.NoError(t, err)
		l = h.open()
		_, err = l.Step(StepOptions{})
		require.ErrorContains(t, err, tc.want)
	}
}
