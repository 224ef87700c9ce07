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
	got := names(m.settlementWrites("op", o, "r", "u", false))
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
	got := names(m.settlementWrites("op", o, "r", "u", true))
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
