package lane

import (
	"reflect"
	"testing"
)

// requestOperationAbort (runtime/lane.ts) deletes the pending entries of the
// queued steer and followUp items in inbox order, then sets the op state
// and the lane state; nextRun items and their entries stay.
func TestCancelRemovesQueuedSteering(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, BaseDelayMs: 10}))
	must(t, m.Enqueue("s0", "steer", "")) // queued during the run
	if ws, _ := m.TakeTX(); !reflect.DeepEqual(withoutValues(ws), []TXWrite{setValue(nsPendingEntry, "s0", ""), setValue(nsLaneState, "main", "")}) {
		t.Fatalf("enqueue TX %v", ws)
	}
	must(t, m.Enqueue("n1", "nextRun", ""))
	must(t, m.Enqueue("f2", "followUp", ""))
	if err := m.Enqueue("x3", "write", ""); err == nil {
		t.Fatal("enqueue of an unknown kind accepted")
	}
	if err := m.Enqueue("n1", "steer", ""); err == nil {
		t.Fatal("enqueue of a used id accepted")
	}
	m.TakeTX()
	m.Cancel()
	ws, _ := m.TakeTX()
	want := []TXWrite{deleteValue(nsPendingEntry, "s0"), deleteValue(nsPendingEntry, "f2"), setValue(nsOpState, "op", ""), setValue(nsLaneState, "main", "")}
	if !reflect.DeepEqual(withoutValues(ws), want) {
		t.Fatalf("cancel TX %v, want %v", ws, want)
	}
	st := m.Committed()
	if !reflect.DeepEqual(st.Lane.Inbox, []InboxItem{{"n1", "nextRun"}}) || !reflect.DeepEqual(st.Pending, []string{"n1"}) {
		t.Fatalf("after cancel: inbox %v pending %v", st.Lane.Inbox, st.Pending)
	}
	if got := m.QueuedIDs(); !reflect.DeepEqual(got, []string{"s0", "n1", "f2"}) {
		t.Fatalf("queued ids %v", got)
	}
}

// withoutValues drops the compared values, for tests that pin a
// transaction's writes and order.
func withoutValues(ws []TXWrite) []TXWrite {
	out := make([]TXWrite, len(ws))
	for i, w := range ws {
		w.Value = ""
		out[i] = w
	}
	return out
}

// runtime/lane.ts requestOperationAbort: the batch is operation_abort with
// the removed steer and followUp messages, then queue_update when it
// removed any; a repeated request emits nothing, and a request that
// removes nothing emits operation_abort alone.
func TestCancelEmitsOperationAbortBeforeQueueUpdate(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, BaseDelayMs: 10}))
	must(t, m.Enqueue("s0", "steer", `{"m":"s0"}`))
	must(t, m.Enqueue("n1", "nextRun", `{"m":"n1"}`))
	must(t, m.Enqueue("f2", "followUp", `{"m":"f2"}`))
	must(t, m.Enqueue("s3", "steer", `{"m":"s3"}`))
	before := len(m.Events())
	m.Cancel()
	want := []string{`operation_abort:op steer=[{"m":"s0"},{"m":"s3"}] followUp=[{"m":"f2"}]`, "queue_update"}
	if got := m.Events()[before:]; !reflect.DeepEqual(got, want) {
		t.Fatalf("cancel events %q, want %q", got, want)
	}
	m.Cancel()
	if got := m.Events()[before+2:]; len(got) != 0 {
		t.Fatalf("repeated cancel events %q", got)
	}

	m = newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, BaseDelayMs: 10}))
	before = len(m.Events())
	m.Cancel()
	if got := m.Events()[before:]; !reflect.DeepEqual(got, []string{"operation_abort:op steer=[] followUp=[]"}) {
		t.Fatalf("cancel events %q", got)
	}
}

// runtime/lane.ts cancelQueued: the item's pending entry is deleted and the
// lane state set without it, then queue_update; an id no longer queued
// commits and emits nothing and is "already_consumed" when an entry has
// it, else "not_found".
func TestCancelQueuedRemovesOneItem(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1, BaseDelayMs: 10}))
	must(t, m.Enqueue("s0", "steer", ""))
	must(t, m.Enqueue("n1", "nextRun", ""))
	m.TakeTX()
	before := len(m.Events())
	if got := m.CancelQueued("n1"); got != "cancelled" {
		t.Fatalf("cancel queued n1: %s", got)
	}
	ws, _ := m.TakeTX()
	if want := []TXWrite{deleteValue(nsPendingEntry, "n1"), setValue(nsLaneState, "main", "")}; !reflect.DeepEqual(withoutValues(ws), want) {
		t.Fatalf("cancel queued TX %v, want %v", ws, want)
	}
	st := m.Committed()
	if !reflect.DeepEqual(st.Lane.Inbox, []InboxItem{{"s0", "steer"}}) || !reflect.DeepEqual(st.Pending, []string{"s0"}) {
		t.Fatalf("after cancel queued: inbox %v pending %v", st.Lane.Inbox, st.Pending)
	}
	if got := m.Events()[before:]; !reflect.DeepEqual(got, []string{"queue_update"}) {
		t.Fatalf("cancel queued events %q", got)
	}
	for id, want := range map[string]string{"n1": "not_found", "u1": "already_consumed"} {
		if got := m.CancelQueued(id); got != want {
			t.Fatalf("cancel queued %s: %s, want %s", id, got, want)
		}
		if ws, _ := m.TakeTX(); len(ws) != 0 {
			t.Fatalf("cancel queued %s wrote %v", id, ws)
		}
	}
	if got := m.Events()[before+1:]; len(got) != 0 {
		t.Fatalf("unqueued cancels emitted %q", got)
	}
}
