package subject

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	ml "github.com/frameproof/frameproof/model/lane"
)

func TestRenamerNamesByFirstAppearance(t *testing.T) {
	var r renamer
	a := r.rename(`op 0000000f-4240-7000-8000-000000000001 at {"startedAt":1000000} then 0000000f-4240-7001-8000-000000000009`)
	b := r.rename(`again 0000000f-4240-7000-8000-000000000001 {"endedAt":1000000}`)
	if a != `op id1 at {"startedAt":t1} then id2` || b != `again id1 {"endedAt":t1}` {
		t.Fatalf("renamed:\n%s\n%s", a, b)
	}
}

func TestEventStringNamesEventsAsTheModel(t *testing.T) {
	for raw, want := range map[string]string{
		`{"type":"run_end","status":"completed","lane":"main","fromTipId":null,"tipId":"t","endedAt":5}`:                                                                           "run_end:completed fromTipId=null tipId=t endedAt=5",
		`{"type":"run_end","status":"failed","error":{"code":"model_unavailable","message":"m","details":{"provider":"p","modelId":"x"}},"fromTipId":"a","tipId":"b","endedAt":7}`: ml.RunEndEvent(ml.Result{Status: "failed", ErrorCode: "model_unavailable", ErrorMessage: "m", ErrorDetails: ml.Canonical([]byte(`{"provider":"p","modelId":"x"}`)), FromTipID: "a", TipID: "b"}, 7),
		`{"type":"retry_scheduled","step":"s","attempt":2,"maxAttempts":3,"delayMs":100,"notBefore":9,"errorMessage":"e"}`:                                                         ml.RetryScheduledEvent("s", 2, 3, 100, 9, "e"),
		`{"type":"retry_end","step":"s","attempt":2,"success":false,"finalError":"f"}`:                                                                                             `retry_end step=s attempt=2 success=false finalError="f"`,
		`{"type":"compaction_start","reason":"overflow","startedAt":3}`:                                                                                                            ml.CompactionStartEvent("overflow", 3),
		`{"type":"entry_added","recovery":true}`:                                                                                                                                   "entry_added(recovery)",
		`{"type":"usage","lane":"main","row":{}}`:                                                                                                                                  "usage",
		`{"type":"operation_abort","operationId":"o","steer":[]}`:                                                                                                                  ml.AbortEvent("o", []string{}, []string{}),
	} {
		got, ok := eventString(json.RawMessage(raw))
		if !ok || got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
	if _, ok := eventString(json.RawMessage(`{"type":"fault"}`)); ok {
		t.Errorf("a harness fault report is not a lane event")
	}
}

func TestClassifyNamesTransactionsByTheirWrites(t *testing.T) {
	m := ml.New(ml.Config{Lane: "main"})
	v := func(ns, key, value string) Write {
		return Write{Kind: WriteValue, Op: OpSet, Namespace: ns, Key: key, Value: json.RawMessage(value)}
	}
	for _, c := range []struct {
		ws   []Write
		want txKind
	}{
		{[]Write{{Kind: WriteList, Op: OpAppend, Namespace: ml.FramesNamespace, Key: "o:r", Value: json.RawMessage(`{}`)}}, txFrame},
		{[]Write{v(nsBranchTip, "main", "null"), v(nsLaneConfig, "main", "{}"), v(nsLaneState, "main", "{}")}, txLaneCreate},
		{[]Write{{Kind: WriteEntry, Entry: json.RawMessage(`{"id":"u","parentId":null}`)}, v(nsOpMeta, "o", "{}"), v(nsOpState, "o", `{"at":"starting"}`)}, txAccept},
		{[]Write{v(nsPendingEntry, "e", "{}"), v(nsLaneState, "main", "{}")}, txEnqueue},
		{[]Write{v(nsOpState, "o", `{"at":"assistant.ready","control":{"status":"running"}}`)}, txStep},
	} {
		if got := classify(c.ws, m); got != c.want {
			t.Errorf("%s: %s, want %s", describe(c.ws), got, c.want)
		}
	}
}

// A decided difference accepts exactly what it names, counts each use,
// and nothing else passes: shown with the first one the pi subject met
// (pi's ready state carrying the checkpoint's members, since fixed in
// frameproof), as a test-local entry.
func TestDiffTXAcceptsOnlyDecidedDifferences(t *testing.T) {
	const readyCarry DivergenceID = "ready-state-carries-checkpoint-fields"
	saved := Divergences
	t.Cleanup(func() { Divergences = saved })
	Divergences = append(slices.Clone(saved), Divergence{ID: readyCarry, Decision: DecidedPiBug,
		accepts: func(g, w ml.TXWrite) bool {
			return g.Namespace == nsOpState && withoutKeys(g.Value, "assistant.ready", "continuation", "triggerEntryId") == w.Value
		}})
	model := `{"control":{"status":"running"},"at":"assistant.ready","nextAttempt":1}`
	pis := `{"control":{"status":"running"},"at":"assistant.ready","continuation":{"kind":"need_assistant"},"triggerEntryId":"u","nextAttempt":1}`
	want := []ml.TXWrite{{Kind: "value", Op: "set", Namespace: nsOpState, Key: "o", Value: ml.Canonical([]byte(model))}}
	got := []ml.TXWrite{{Kind: "value", Op: "set", Namespace: nsOpState, Key: "o", Value: ml.Canonical([]byte(pis))}}
	seen := map[DivergenceID]int{}
	if err := diffTX(got, want, seen); err != nil || seen[readyCarry] != 1 {
		t.Fatalf("pi's ready state with the checkpoint's fields: %v (seen %v)", err, seen)
	}
	other := []ml.TXWrite{{Kind: "value", Op: "set", Namespace: nsOpState, Key: "o", Value: ml.Canonical([]byte(`{"control":{"status":"running"},"at":"assistant.ready","nextAttempt":2}`))}}
	if err := diffTX(other, want, seen); err == nil || !strings.Contains(err.Error(), "nextAttempt") {
		t.Fatalf("a different value is a mismatch: %v", err)
	}
	if err := diffTX(got[:0], want, seen); err == nil {
		t.Fatalf("a missing write is a mismatch")
	}
}
