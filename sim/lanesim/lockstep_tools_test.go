package lanesim

import (
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

func valueAt(ns, key string) store.Address {
	return store.Address{Namespace: ns, Key: key, Kind: store.KindValue}
}

// The lockstep names a tool transaction's call by its writes alone
// (runtime/drive/tools.ts publishToolIntent: the arguments' key carries the
// source index; publishToolOutcome: the pending entry's key is the result
// id; clearReplayCheckpoint: the progress key is "<op>:<resultEntryId>").
func TestToolTransactionsNameTheirCall(t *testing.T) {
	state := `{"control":{"status":"running"},"settings":{},"latestAssistantEntryId":"r1","at":"tools","batch":{"assistantEntryId":"r1",` +
		`"configuration":{"model":{"provider":"p","modelId":"m"},"thinkingLevel":"off","activeToolNames":["read"]},"turnId":"s1","calls":[` +
		`{"status":"effect_pending","sourceIndex":1,"resultEntryId":"t1","replay":"never"},` +
		`{"status":"effect_pending","sourceIndex":12,"resultEntryId":"t2","replay":"never"}]}}`
	intent := []store.Write{store.SetValueRaw(valueAt(lane.NSToolArgs, "op:s1:12"), []byte(`{"path":"b"}`)),
		store.SetValueRaw(lane.OpStateAddr("op"), []byte(state))}
	id, err := toolIntentResult(intent, lane.DecodeState)
	if err != nil || id != "t2" {
		t.Fatalf("intent names %q, %v; want t2", id, err)
	}
	if _, err := toolIntentResult(intent[1:], lane.DecodeState); err == nil {
		t.Fatal("an intent without arguments named a call")
	}
	outcome := []store.Write{store.SetValueRaw(valueAt(lane.NSPendingEntry, "t1"), []byte(`{"type":"message","payload":{}}`)),
		store.DeleteValueRaw(valueAt(lane.NSPendingOutput, "op:t1")), store.SetValueRaw(lane.OpStateAddr("op"), []byte(state))}
	if id := toolOutcomeResult(outcome); id != "t1" {
		t.Fatalf("outcome names %q, want t1", id)
	}
	if id := toolReplayResult(outcome[1:2]); id != "t1" {
		t.Fatalf("replay clear names %q, want t1", id)
	}
}
