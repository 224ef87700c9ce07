package lane

import (
	"strings"
	"testing"
)

func names(ws []TXWrite) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.String()
	}
	return strings.Join(parts, "; ")
}

// runtime/drive/response.ts publishResponse: entry, usage, tip, frame list
// delete, then settleOperation's op state.
func TestSettlementWritesFollowPublishResponse(t *testing.T) {
	m := New(Config{Lane: "main"})
	o := Op{At: AtEffectPending, ResponseEntryID: "r", UsageID: "g"}
	got := names(m.settlementWrites("op", o, "r", "u", &Op{At: AtCheckpoint}))
	want := `entry r parent="u"; usage g; value set pi.branch.tip/main = "r"; list delete pi.pending.assistant_frame/op:r; value set pi.op.state/op`
	if got != want {
		t.Fatalf("settlement writes\n got %s\nwant %s", got, want)
	}
}

// runtime/drive/response.ts publishResponse (failure) then
// runtime/drive/terminal.ts operationCleanupWrites: meta, state, frame
// list; settleOperation's finish adds result and lane state.
func TestFailedSettlementWritesEndWithTerminalSuffix(t *testing.T) {
	m := New(Config{Lane: "main"})
	o := Op{At: AtEffectPending, ResponseEntryID: "r", UsageID: "g"}
	got := names(m.settlementWrites("op", o, "r", "u", nil))
	want := `entry r parent="u"; usage g; value set pi.branch.tip/main = "r"; value delete pi.op.meta/op; value delete pi.op.state/op; list delete pi.pending.assistant_frame/op:r; value set pi.result/op; value set pi.lane.state/main`
	if got != want {
		t.Fatalf("failed settlement writes\n got %s\nwant %s", got, want)
	}
}

// runtime/lane.ts requestOperationAbort: op state, then lane state.
func TestCancelWritesFollowRequestOperationAbort(t *testing.T) {
	m := New(Config{Lane: "main"})
	if got, want := names(m.cancelWrites("op")), "value set pi.op.state/op; value set pi.lane.state/main"; got != want {
		t.Fatalf("cancel writes\n got %s\nwant %s", got, want)
	}
}

// runtime/drive/response.ts publishResponse: an overflow settling into
// summary.deciding writes pi.op.preparation/<op>:<taskId> after the frame
// list delete and before the op state; the task id is the implementation's.
func TestOverflowSettlementWritesPreparationBeforeOpState(t *testing.T) {
	m := New(Config{Lane: "main"})
	o := Op{At: AtEffectPending, ResponseEntryID: "r", UsageID: "g"}
	got := names(m.settlementWrites("op", o, "r", "u", &Op{At: AtSummaryDeciding, Preparation: `{"kind":"compaction"}`}))
	want := `entry r parent="u"; usage g; value set pi.branch.tip/main = "r"; list delete pi.pending.assistant_frame/op:r; value set pi.op.preparation/op:* = {"kind":"compaction"}; value set pi.op.state/op`
	if got != want {
		t.Fatalf("overflow settlement writes\n got %s\nwant %s", got, want)
	}
}

// runtime/drive/terminal.ts operationCleanupWrites deletes the operation's
// preparations (after meta and state) when a summary.deciding run ends.
func TestTerminalWritesDeletePreparation(t *testing.T) {
	m := New(Config{Lane: "main"})
	got := names(m.terminalWrites("op", Op{At: AtSummaryDeciding, Preparation: `{}`}))
	want := `value delete pi.op.meta/op; value delete pi.op.state/op; value delete pi.op.preparation/op:*; value set pi.result/op; value set pi.lane.state/main`
	if got != want {
		t.Fatalf("terminal writes\n got %s\nwant %s", got, want)
	}
}
