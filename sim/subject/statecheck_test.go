package subject

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
)

// stateRun is one response's life as a subject reports it: acceptance at
// effect_pending, one frame encoded and its append committed, the live
// message_end, the settlement (entry, frame list deleted, checkpoint).
type stateRun struct {
	accept, frame, settle []Write
	endBeforeAppend       bool
	// synthetic: the settlement is logged as a recovery's (its entry, a
	// stop response, then breaks invariant 7)
	synthetic bool
}

func newStateRun(t *testing.T) stateRun {
	t.Helper()
	state := func(s *lane.OpState) Write {
		return Write{Kind: WriteValue, Op: OpSet, Namespace: lane.NSOpState, Key: "op1", Value: lane.MarshalState(s)}
	}
	msg := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: "a"}}, API: scriptAPI, Provider: Provider,
		Model: modelID, StopReason: pi.StopStop, Timestamp: 5}
	mb, err := pi.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	frame, err := pi.Marshal(&pi.Frame{Type: pi.FrameStart, Partial: &pi.AssistantMessage{Content: []pi.Content{},
		API: scriptAPI, Provider: Provider, Model: modelID, StopReason: pi.StopPending}})
	if err != nil {
		t.Fatal(err)
	}
	frames := lane.FramesAddr("op1", "r1")
	return stateRun{
		accept: []Write{
			{Kind: WriteEntry, Entry: json.RawMessage(`{"type":"message","id":"u1","parentId":null,"timestamp":1,"message":{"role":"user","content":"hi","timestamp":1}}`)},
			{Kind: WriteValue, Op: OpSet, Namespace: lane.NSOpMeta, Key: "op1", Value: json.RawMessage(`{"operationId":"op1"}`)},
			state(&lane.OpState{At: lane.LeafAssistantEffectPending, ResponseEntryID: "r1", UsageID: "g1", Gen: &lane.GenerationContext{}}),
		},
		frame: []Write{{Kind: WriteList, Op: OpAppend, Namespace: frames.Namespace, Key: frames.Key, Value: frame}},
		settle: []Write{
			{Kind: WriteEntry, Entry: json.RawMessage(`{"type":"message","id":"r1","parentId":"u1","timestamp":5,"message":` + string(mb) + `}`)},
			{Kind: WriteList, Op: OpDelete, Namespace: frames.Namespace, Key: frames.Key},
			state(&lane.OpState{At: lane.LeafCheckpoint, TriggerEntryID: "r1", Continuation: lane.Continuation{Kind: lane.ContinueMayFinish}}),
		},
	}
}

// feed runs the checker over the run as the runner feeds it.
func (s stateRun) feed() error {
	now := 5.0
	c := newStateCheck(&now)
	if err := c.commit(s.accept, nil); err != nil {
		return err
	}
	c.enqueued("op1", "r1", 0, pi.EventStart)
	if s.endBeforeAppend {
		c.messageEnd("r1")
	}
	if err := c.commit(s.frame, &frameAppend{op: "op1", resp: "r1", event: 0}); err != nil {
		return err
	}
	if !s.endBeforeAppend {
		c.messageEnd("r1")
	}
	if err := c.commit(s.settle, nil); err != nil {
		return err
	}
	if s.synthetic {
		c.synthetic(s.settle)
	}
	return c.check("at the run's end", nil)
}

// TestStateCheckRejectsBrokenCommittedState: the invariants run on a
// subject's committed state pass a response's honest life and fail each
// break of it — a settlement that keeps the frame list (8), a stored
// element that is not a canonical frame (3), a frame list at an address
// other than the response's (2, 12), a message_end before the frame's
// append committed (6), a synthetic settlement that succeeds (7) — so the
// check on pi's commits is live.
func TestStateCheckRejectsBrokenCommittedState(t *testing.T) {
	if err := newStateRun(t).feed(); err != nil {
		t.Fatalf("the honest run fails: %v", err)
	}
	for name, c := range map[string]struct {
		brk  func(*stateRun)
		want string
	}{
		"settlement keeps the frame list": {func(s *stateRun) { s.settle = append(s.settle[:1], s.settle[2]) }, "invariant 8"},
		"element is no canonical frame": {func(s *stateRun) {
			s.frame[0].Value = json.RawMessage(`{"partial":{},"type":"start"}`)
		}, "invariant 3"},
		"frame list at another operation's address": {func(s *stateRun) {
			a := lane.FramesAddr("op2", "r1")
			s.frame[0].Key = a.Key
			s.settle[1].Key = a.Key
		}, "invariant 2"},
		"message_end before the append committed": {func(s *stateRun) { s.endBeforeAppend = true }, "invariant 6"},
		"a synthetic settlement that succeeds":    {func(s *stateRun) { s.synthetic = true }, "invariant 7"},
	} {
		s := newStateRun(t)
		c.brk(&s)
		err := s.feed()
		var inv *InvariantError
		if err == nil || !errors.As(err, &inv) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InvariantError naming %s", name, err, c.want)
		}
	}
}

// TestStateCheckRejectsSnapshotPartialOutsideEffectPending: invariant 9 on
// pi's snapshot — a streaming message while the committed operation is at
// effect_pending and its response not in the transcript passes; one
// beside a settled operation, or with the pending response already in the
// transcript, fails.
func TestStateCheckRejectsSnapshotPartialOutsideEffectPending(t *testing.T) {
	snap := func(transcript string) json.RawMessage {
		return json.RawMessage(`{"transcript":[` + transcript + `],"operation":{"id":"op1","status":"open","streamingMessage":{"role":"assistant","content":[]}}}`)
	}
	s := newStateRun(t)
	now := 5.0
	c := newStateCheck(&now)
	if err := c.commit(s.accept, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.snapshot(snap(`{"id":"u1"}`)); err != nil {
		t.Fatalf("a partial at effect_pending: %v", err)
	}
	if err := c.snapshot(snap(`{"id":"u1"},{"id":"r1"}`)); err == nil || !strings.Contains(err.Error(), "invariant 9") {
		t.Errorf("the pending response in the transcript: %v, want invariant 9", err)
	}
	c.enqueued("op1", "r1", 0, pi.EventStart)
	if err := c.commit(s.frame, &frameAppend{op: "op1", resp: "r1", event: 0}); err != nil {
		t.Fatal(err)
	}
	c.messageEnd("r1")
	if err := c.commit(s.settle, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.snapshot(snap(`{"id":"u1"},{"id":"r1"}`)); err == nil || !strings.Contains(err.Error(), "invariant 9") {
		t.Errorf("a partial beside a settled operation: %v, want invariant 9", err)
	}
}
