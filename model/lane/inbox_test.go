package lane

import (
	"reflect"
	"testing"
)

// runtime/drive/boundary.ts planBoundaryInbox (from checkpoint.ts
// runCheckpoint, need_assistant): the first queued steer item is placed
// after the tip, ahead of the op state and lane state, and its pending
// value deleted; followUp and nextRun items stay queued.
func TestCheckpointPlacesFirstSteerItem(t *testing.T) {
	m := newModel()
	must(t, startRunOn(m, "op", "u1", Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}))
	_, err := m.Step(false)
	must(t, err)
	_, err = m.StepDone(true)
	must(t, err)
	must(t, m.Enqueue("f1", "followUp", `"f"`))
	must(t, m.Enqueue("s1", "steer", `"a"`))
	must(t, m.Enqueue("s2", "steer", `"b"`))
	_, err = m.Step(false)
	must(t, err)
	m.TakeTX()
	must(t, m.Checkpoint("step"))
	ws, _ := m.TakeTX()
	want := []TXWrite{{Kind: "entry", Key: "s1", Parent: "u1"}, deleteValue(nsPendingEntry, "s1"),
		setValue(nsBranchTip, "main", `"s1"`), setValue(nsOpState, "op", ""), setValue(nsLaneState, "main", "")}
	if !reflect.DeepEqual(withoutValues(ws), withoutValues(want)) {
		t.Fatalf("checkpoint TX %v, want %v", ws, want)
	}
	st := m.Committed()
	if st.Tip != "s1" || !reflect.DeepEqual(st.Lane.Inbox, []InboxItem{{"f1", "followUp"}, {"s2", "steer"}}) {
		t.Fatalf("after the boundary: tip %s inbox %v", st.Tip, st.Lane.Inbox)
	}
	if got := m.ops["op"].generationTrigger(); got != "s1" {
		t.Fatalf("generation trigger %s", got)
	}
}

// runtime/lane.ts acceptRun (selectAcceptedInbox): every nextRun item, the
// first steer and the first followUp item are chained before the prompt.
func TestStartRunCapturesQueuedInput(t *testing.T) {
	m := newModel()
	run := Run{UserText: "hi", Model: ModelRef{"openai", "gpt"}, MaxAttempts: 1}
	m.Acquire(runConfig(run))
	for _, q := range [][2]string{{"n1", "nextRun"}, {"s1", "steer"}, {"s2", "steer"}, {"n2", "nextRun"}, {"f1", "followUp"}, {"f2", "followUp"}} {
		must(t, m.Enqueue(q[0], q[1], `"x"`))
	}
	m.TakeTX()
	must(t, m.StartRun("op", "u1", run))
	ws, _ := m.TakeTX()
	want := []TXWrite{{Kind: "entry", Key: "n1"}, {Kind: "entry", Key: "s1", Parent: "n1"}, {Kind: "entry", Key: "n2", Parent: "s1"},
		{Kind: "entry", Key: "f1", Parent: "n2"}, {Kind: "entry", Key: "u1", Parent: "f1"},
		deleteValue(nsPendingEntry, "n1"), deleteValue(nsPendingEntry, "s1"), deleteValue(nsPendingEntry, "n2"), deleteValue(nsPendingEntry, "f1"),
		setValue(nsBranchTip, "main", `"u1"`), setValue(nsOpMeta, "op", ""), setValue(nsOpState, "op", ""), setValue(nsLaneState, "main", "")}
	if !reflect.DeepEqual(withoutValues(ws), withoutValues(want)) {
		t.Fatalf("start TX %v, want %v", ws, want)
	}
	if inbox := m.Committed().Lane.Inbox; !reflect.DeepEqual(inbox, []InboxItem{{"s2", "steer"}, {"f2", "followUp"}}) {
		t.Fatalf("inbox after the start %v", inbox)
	}
}
