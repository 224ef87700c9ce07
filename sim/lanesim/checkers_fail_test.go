package lanesim

import (
	"cmp"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanecmp"
	"github.com/frameproof/frameproof/sim/world"
)

// bareRunner is a runner with its checkers and no run: enough to feed one
// checker a state and read whether it failed.
func bareRunner() *runner {
	return newRunner(profile{}, Options{}, world.New(choice.NewSeeded(1), world.Options{}))
}

// Each checker below is shown to report on a broken state and to stay
// quiet on the matching sound one: a checker that cannot fail proves
// nothing.

// teeStore commits to the lane's storage and to a second store, so both
// hold the same state until a test breaks one of them.
type teeStore struct {
	*specStore
	other *specStore
}

func (s teeStore) Commit(ws []store.Write) (store.CommitResult, error) {
	res, err := s.specStore.Commit(ws)
	if err == nil {
		_, err = s.other.Commit(ws)
	}
	return res, err
}

// effectPendingTwins returns a lane's storage and an oracle holding the same
// operation, moved to assistant.effect_pending for response "r1" (a StartRun
// committed and stepped to assistant.ready through a real lane, then its
// state advanced as an intent does).
func effectPendingTwins(t *testing.T) (st, ref *specStore, op string) {
	clock := envtest.NewClock(envtest.Epoch)
	st, ref = newSpecStore(clock), newSpecStore(clock)
	ln := openTestLane(t, teeStore{st, ref})
	limit := simRetryCapMs
	op, err := ln.StartRun(lane.RunOptions{UserText: "question", Configuration: lane.Configuration{
		Model: lane.ModelRef{Provider: simProvider, ModelID: simModel}, ThinkingLevel: "off"},
		RetryPolicy: lane.RetryPolicy{MaxAttempts: 2, BaseDelayMs: 50, MaxAgentDelayMs: &limit}})
	require.NoError(t, err)
	for i := 0; i < 2; i++ { // the start and checkpoint steps: assistant.ready
		_, err := ln.Step(lane.StepOptions{})
		require.NoError(t, err)
	}
	s := ln.Current().State.Clone()
	s.At, s.Attempt, s.ResponseEntryID, s.UsageID = lane.LeafAssistantEffectPending, 1, "r1", "u1"
	intent := []store.Write{store.SetValueRaw(lane.OpStateAddr(op), lane.MarshalState(s))}
	_, err = teeStore{st, ref}.Commit(intent)
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	return st, ref, op
}

func openTestLane(t *testing.T, st store.Storage) *lane.Lane {
	ln, err := lane.Open(lane.Config{Name: laneName, Storage: st, Clock: envtest.NewClock(envtest.Epoch),
		IDs: &envtest.IDs{}, Exec: env.Goroutines{}})
	require.NoError(t, err)
	return ln
}

// appendText commits the frames of a stream that said text so far.
func appendText(t *testing.T, st store.Storage, op, text string) {
	m := &pi.AssistantMessage{Content: []pi.Content{}, API: "a", Provider: simProvider, Model: simModel, StopReason: pi.StopPending}
	evs := []pi.Event{{Type: pi.EventStart, Partial: m}}
	m2 := m.Clone()
	m2.Content = []pi.Content{pi.TextContent{Text: text}}
	evs = append(evs, pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: m2},
		pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: text, Partial: m2})
	enc := frames.NewEncoder()
	var ws []store.Write
	for i := range evs {
		f, err := enc.Encode(&evs[i])
		require.NoError(t, err)
		if f != nil {
			ws = append(ws, store.AppendListRaw(lane.FramesAddr(op, "r1"), f.AppendJSON(nil)))
		}
	}
	_, err := st.Commit(ws)
	require.NoError(t, err)
}

// checkCapture reports a capture that is not the reduction of the frames
// the oracle holds for the effect_pending response.
func TestCheckCaptureRejectsAnotherReduction(t *testing.T) {
	for _, tc := range []struct {
		name            string
		laneText, refOK string
		broken          bool
	}{
		{"same frames", "hello", "hello", false},
		{"frames the oracle never committed", "hello", "help", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ref, op := effectPendingTwins(t)
			appendText(t, st, op, tc.laneText)
			appendText(t, ref, op, tc.refOK)
			r := bareRunner()
			r.ref = ref
			r.capture.snapshot(openTestLane(t, st), nil, "test")
			require.Equal(t, tc.broken, r.failed, r.msg)
			if tc.broken {
				require.Contains(t, r.msg, "is not the committed reduction")
			}
		})
	}
}

// checkClientFold reports a client fold that still shows a streaming
// message once every stream delivered its message_end.
func TestCheckClientFoldRejectsALingeringMessage(t *testing.T) {
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		r.ln = openTestLane(t, newSpecStore(envtest.NewClock(envtest.Epoch)))
		r.client.fold = &lane.ClientFold{Lane: laneName}
		if broken {
			r.client.fold.StreamingMessage = &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: "left over"}}, StopReason: pi.StopPending}
		}
		require.Equal(t, !broken, r.client.check("test"))
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, "keeps a streaming message after its stream ended")
		}
	}
}

// checkCancelAbortsStream reports a committed cancel whose response still
// streams with its abort signal unfired.
func TestCheckCancelAbortsStreamRejectsAnUnfiredSignal(t *testing.T) {
	for _, fired := range []bool{true, false} {
		_, ref, op := effectPendingTwins(t)
		s := cancelRequested(t, ref, op)
		r := bareRunner()
		r.ref = ref
		abort := r.w.NewFuture("abort")
		if fired {
			abort.Resolve(nil)
		}
		r.cur = &simStream{r: r, req: lane.Request{OperationID: op, ResponseEntryID: s.ResponseEntryID, Abort: abort}}
		r.checkCancelAbortsStream()
		require.Equal(t, !fired, r.failed, r.msg)
		if !fired {
			require.Contains(t, r.msg, "its abort signal did not fire")
		}
	}
}

// cancelRequested commits the cancel_requested mark on op's state in st.
func cancelRequested(t *testing.T, st *specStore, op string) *lane.OpState {
	v, err := st.GetValue(lane.OpStateAddr(op))
	require.NoError(t, err)
	s, err := lane.DecodeState(v.Value)
	require.NoError(t, err)
	s.Control = lane.Control{CancelRequested: true, RequestedAt: 1}
	_, err = st.Commit([]store.Write{store.SetValueRaw(lane.OpStateAddr(op), lane.MarshalState(s))})
	require.NoError(t, err)
	return s
}

// noteCommit reports a pending assistant message committed as an entry
// (pi's session/session.ts refuses one), and passes a settled one.
func TestNoteCommitRejectsAPendingAssistantEntry(t *testing.T) {
	for _, reason := range []pi.StopReason{pi.StopStop, pi.StopPending} {
		msg := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: "hi"}}, API: "a", Provider: simProvider, Model: simModel, StopReason: reason}
		raw, err := pi.Marshal(msg)
		require.NoError(t, err)
		entry := []byte(`{"type":"message","id":"e1","parentId":null,"timestamp":"t","message":` + string(raw) + `}`)
		r := bareRunner()
		r.races.noteCommit([]store.Write{store.InsertEntry(store.Entry{ID: "e1", Raw: entry})}, "", nil)
		require.Equal(t, reason == pi.StopPending, r.failed, r.msg)
		if r.failed {
			require.Contains(t, r.msg, "a pending assistant message was committed as entry e1")
		}
	}
}

// CompareCapture reports a capture that differs from the model's: a
// streaming message the model's committed frames do not hold, or the live
// partial (pi's captureLaneSnapshot reads only committed frames).
func TestCompareCaptureRejectsADifferentCapture(t *testing.T) {
	m := ml.New(ml.Config{Lane: laneName})
	require.NoError(t, lanecmp.CompareCapture(&lane.Snapshot{Lane: laneName}, m))
	streaming := &lane.Snapshot{Lane: laneName, StreamingMessage: &pi.AssistantMessage{Content: []pi.Content{}, StopReason: pi.StopPending}}
	require.ErrorContains(t, lanecmp.CompareCapture(streaming, m), "capture differs")
	require.ErrorContains(t, lanecmp.CompareCapture(&lane.Snapshot{Lane: laneName, Live: true}, m), "capture differs")
	require.ErrorContains(t, lanecmp.CompareCapture(&lane.Snapshot{Lane: laneName, Transcript: []lane.TranscriptEntry{{ID: "x"}}}, m), "capture differs")
}

// The telemetry checker reports an acknowledged write's telemetry without its seq,
// or with one the store has not acknowledged yet.
func TestOnTelemetryRejectsAWrongSeq(t *testing.T) {
	for _, tc := range []struct {
		seq    int64
		broken bool
	}{{4, false}, {0, true}, {6, true}} {
		r := bareRunner()
		r.seqs.lastSeq, r.telemetry.lastSeq = 5, 3
		r.telemetry.record(lane.TelemetryRecord{Kind: "value", Op: "set", Namespace: "pi.op.state", Key: "op", Seq: tc.seq})
		require.Equal(t, tc.broken, r.failed, "seq %d: %s", tc.seq, r.msg)
	}
}

// modelCuts.match accepts a capture equal to the model at any cut between
// the call and its return, and rejects one equal to none of them.
func TestCaptureCutsRejectACaptureAtNoCut(t *testing.T) {
	c := &modelCuts{cuts: []ml.Snapshot{{Transcript: []string{"e1"}}, {Transcript: []string{"e1", "e2"}}}}
	later := &lane.Snapshot{Lane: laneName, Transcript: []lane.TranscriptEntry{{ID: "e1"}, {ID: "e2"}}}
	rd := new(lanecmp.Reader)
	require.NoError(t, c.match(rd, later))
	other := &lane.Snapshot{Lane: laneName, Transcript: []lane.TranscriptEntry{{ID: "e2"}}}
	require.ErrorContains(t, c.match(rd, other), "nor the model at any of the 1 later cuts")
	// a streaming message is rendered once and compared at every cut
	streaming := &lane.Snapshot{Lane: laneName, Transcript: later.Transcript, StreamingMessage: &pi.AssistantMessage{Content: []pi.Content{}}}
	form, err := rd.SnapshotForm(streaming)
	require.NoError(t, err)
	c.cuts = append(c.cuts, form)
	require.NoError(t, c.match(rd, streaming))
	require.ErrorContains(t, c.match(rd, other), "nor the model at any of the 2 later cuts")
	c.cuts = c.cuts[:1]
	require.ErrorContains(t, c.match(rd, later), "capture differs")
}

// The second driver's comparison rejects an outcome other than the observed
// step's, and one with no observed step to compare with.
func TestObservedOutcomeRejectsAnotherOutcome(t *testing.T) {
	want := ml.Outcome{Kind: "completed", Status: "done"}
	require.NoError(t, observedOutcomeMismatch(want, want, true))
	require.ErrorContains(t, observedOutcomeMismatch(ml.Outcome{Kind: "idle"}, want, true), "second driver returned")
	require.Error(t, observedOutcomeMismatch(want, want, false))
}

// usageFails is a store whose usage rows cannot be read.
type usageFails struct{ *specStore }

func (usageFails) Usage() ([]store.StoredUsage, error) { return nil, errors.New("usage unreadable") }

// diffStores reports a backend whose values, list elements or usage rows
// differ from the reference's (or cannot be read), and stays quiet on equal
// stores.
func TestDiffStoresRejectsADifferentBackend(t *testing.T) {
	clock := envtest.NewClock(envtest.Epoch)
	list := lane.FramesAddr("op", "r1")
	twins := func(got, want []store.Write) (*runner, *specStore, *specStore) {
		r := bareRunner()
		st, ref := newSpecStore(clock), newSpecStore(clock)
		_, err := st.Commit(got)
		require.NoError(t, err)
		_, err = ref.Commit(want)
		require.NoError(t, err)
		r.reference.lists.note(want)
		return r, st, ref
	}
	same := []store.Write{store.SetValueRaw(lane.LaneStateAddr(laneName), []byte(`{"a":1}`)), store.AppendListRaw(list, []byte(`1`))}
	r, st, ref := twins(same, same)
	require.Empty(t, r.reference.diffStores(st, ref))
	require.Contains(t, r.reference.diffStores(usageFails{st}, ref), "usage unreadable")

	value := []store.Write{store.SetValueRaw(lane.LaneStateAddr(laneName), []byte(`{"a":2}`)), same[1]}
	r, st, ref = twins(value, same)
	require.Contains(t, r.reference.diffStores(st, ref), "differs")

	element := []store.Write{same[0], store.AppendListRaw(list, []byte(`2`))}
	r, st, ref = twins(element, same)
	require.Contains(t, r.reference.diffStores(st, ref), "element 0")
}

// prefixChecker reports a committed frame whose list reduces to other than
// the model observer's message, or that is not the list's tail.
func TestPrefixCheckerRejectsAnotherPrefix(t *testing.T) {
	ref := newSpecStore(envtest.NewClock(envtest.Epoch))
	appendText(t, ref, "op", "hello")
	els, err := ref.ReadList(lane.FramesAddr("op", "r1"), store.ReadOptions{Limit: 100})
	require.NoError(t, err)
	tail := els[len(els)-1].Seq
	for _, tc := range []struct {
		name   string
		seq    int64
		broken string // the failure message expected, "" for none
		wrong  bool   // the observer says another message
	}{
		{"the observed prefix", tail, "", false},
		{"another message", tail, "committed prefix of r1", true},
		{"not the tail", tail - 1, "is not the tail", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bareRunner()
			r.ref = ref
			m, ok := r.prefix.committedReduction("op", "r1", "test")
			require.True(t, ok)
			observed := marshalMsg(m)
			if tc.wrong {
				observed = marshalMsg(&pi.AssistantMessage{Content: []pi.Content{pi.TextContent{Text: "help"}}})
			}
			r.streams["r1"] = &simStream{observed: []string{observed}}
			r.prefix.committedFrame(lane.FrameRecord{OperationID: "op", ResponseEntryID: "r1", Seq: tc.seq})
			require.Equal(t, tc.broken != "", r.failed, r.msg)
			if tc.seq == tail {
				require.Equal(t, 1, r.checks, "the reduction is one check, passed or failed")
			}
			if tc.broken != "" {
				require.Contains(t, r.msg, tc.broken)
			}
		})
	}
}

// referenceChecker reports an acknowledged commit whose seqs are not the
// reference's, and counts one check either way.
func TestReferenceCheckerRejectsOtherSeqs(t *testing.T) {
	ws := []store.Write{store.SetValueRaw(lane.LaneStateAddr(laneName), []byte(`{"a":1}`)), store.AppendListRaw(lane.FramesAddr("op", "r1"), []byte(`1`))}
	for _, tc := range []struct {
		name   string
		seqs   []int64
		broken bool
	}{
		{"the reference's seqs", []int64{1, 2}, false},
		{"other seqs", []int64{1, 3}, true},
		{"too few", []int64{1}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bareRunner()
			r.ref = newSpecStore(envtest.NewClock(envtest.Epoch))
			checks := r.checks
			ok := r.reference.commit(commitEvent{ws: ws, res: store.CommitResult{FirstSeq: 1, Seqs: tc.seqs}})
			require.Equal(t, !tc.broken, ok)
			require.Equal(t, tc.broken, r.failed, r.msg)
			require.Equal(t, checks+1, r.checks)
			if tc.broken {
				require.Contains(t, r.msg, "acknowledged seqs")
			} else {
				require.Len(t, r.reference.lists.sortedFrameKeys(), 1, "the commit's list noted")
			}
		})
	}
}

// The refused-file probe's judgement: only pi's refusal of line 2 with the
// drawn cause passes; an open that succeeds, a failure that is no storage
// error, another line or another cause is reported.
func TestRefusedAsReportsEveryOtherOutcome(t *testing.T) {
	const cause = "Value namespace must not contain \\u0000"
	refusal := func(line int, c error) error { return &jsonl.StorageError{What: "line", Line: line, Cause: c} }
	require.Empty(t, refusedAs(refusal(2, errors.New(cause)), cause))
	for name, err := range map[string]error{
		"opened":        nil,
		"not storage":   errors.New(cause),
		"other line":    refusal(3, errors.New(cause)),
		"other cause":   refusal(2, errors.New("Non-monotonic storage sequence: 2")),
		"with no cause": refusal(2, nil),
	} {
		require.NotEmpty(t, refusedAs(err, cause), name)
	}
}

// checkForkCopies accepts the fork's copies only in the source's commit
// order under consecutive seqs (session/fork.ts createForkSnapshot): a
// reordered, dropped or renumbered copy is reported.
func TestCheckForkCopiesRejectsOtherCopies(t *testing.T) {
	clock := envtest.NewClock(envtest.Epoch)
	r := bareRunner()
	r.ref = newSpecStore(clock)
	require.True(t, r.seedAppValues(newSpecStore(clock)), r.msg)
	var want []store.CommittedWrite
	for _, ns := range append([]string{lane.NSSessionName}, appNamespaces...) {
		vs, err := r.ref.ScanValues(ns, "")
		require.NoError(t, err)
		for _, v := range vs {
			want = append(want, store.CommittedWrite{Write: store.Write{Kind: store.WriteValue, Op: store.OpSet,
				Namespace: v.Address.Namespace, Key: v.Address.Key, Value: v.Value}, Seq: v.Seq})
		}
	}
	slices.SortFunc(want, func(a, b store.CommittedWrite) int { return cmp.Compare(a.Seq, b.Seq) })
	require.Greater(t, len(want), 2)
	renumber := func(ws []store.CommittedWrite, from int64) []store.CommittedWrite {
		out := slices.Clone(ws)
		for i := range out {
			out[i].Seq = from + int64(i)
		}
		return out
	}
	swapped := renumber(want, 100)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	swapped = renumber(swapped, 100)
	gap := renumber(want, 100)
	gap[len(gap)-1].Seq++
	for name, tc := range map[string]struct {
		ws     []store.CommittedWrite
		broken bool
	}{
		"source order, consecutive": {renumber(want, 100), false},
		"two copies swapped":        {swapped, true},
		"a copy dropped":            {renumber(want[1:], 100), true},
		"a seq skipped":             {gap, true},
	} {
		r.failed, r.msg = false, ""
		(&forkMigrateChecker{r}).checkForkCopies(tc.ws)
		require.Equal(t, tc.broken, r.failed, "%s: %s", name, r.msg)
	}
}

// checkQueues reports a client fold whose queued item carries another
// message than the one queued (pi's queue_update carries each item's
// message: readLaneQueues).
func TestCheckQueuesRejectsAnotherQueuedMessage(t *testing.T) {
	const queued = `{"role":"user","content":[{"type":"text","text":"q"}],"timestamp":1}`
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		require.NoError(t, r.ls.m.Enqueue("e1", "steer", ml.Canonical([]byte(queued))))
		shown := queued
		if broken {
			shown = `{"role":"user"}`
		}
		msg, err := pi.ParseJSON(shown)
		require.NoError(t, err)
		item := pi.NewObject()
		item.Set("entryId", pi.StringValue("e1"))
		item.Set("kind", pi.StringValue("steer"))
		item.Set("type", pi.StringValue("message"))
		item.Set("message", msg)
		r.client.fold = &lane.ClientFold{Lane: laneName, Queues: pi.ArrayValue([]pi.JSONValue{pi.ObjectValue(item)})}
		require.Equal(t, !broken, r.client.checkQueues("test"))
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, "shows queued item e1 as")
		}
	}
}

// The listener reports an event that names another lane (every pi lane
// event carries its lane).
func TestListenerRejectsAnEventOfAnotherLane(t *testing.T) {
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		// the model expects the queue_update an enqueue emits
		require.NoError(t, r.ls.m.Enqueue("e1", "nextRun", `{"role":"user"}`))
		name := laneName
		if broken {
			name = "other"
		}
		r.listener.listen(lane.Event{Type: lane.EvQueueUpdate, Lane: name})
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, `names lane "other"`)
		}
	}
}

// checkAborting reports a client fold whose current operation's aborting
// flag is not the model's cancel_requested (pi's reduceLaneSnapshot marks
// the operation aborting on operation_abort).
func TestCheckAbortingRejectsAFoldThatMissedTheAbort(t *testing.T) {
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		run := ml.Run{UserText: "hi", Model: ml.ModelRef{Provider: "openai", ModelID: "gpt-test"}, MaxAttempts: 1}
		for r.ls.m.Acquire(ml.LaneConfig{Model: run.Model}) {
		}
		require.NoError(t, r.ls.m.StartRun("op1", "u1", run))
		r.ls.m.Cancel()
		r.client.fold = &lane.ClientFold{Lane: laneName, OperationID: "op1", Aborting: !broken}
		require.Equal(t, !broken, r.client.checkAborting("test"))
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, "aborting=false, its control is cancel_requested=true")
		}
	}
}

// A cancel-queued command that committed nothing is reported when the
// model would have removed the item (pi's cancelQueued removes a queued
// item in one transaction), and passes when the id was never queued.
func TestUnqueueDeclinedRejectsAMissedRemoval(t *testing.T) {
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		require.NoError(t, r.ls.m.Enqueue("e1", "steer", `{"role":"user"}`))
		r.ls.m.TakeTX()
		id := "never-queued"
		if broken {
			id = "e1"
		}
		r.ls.unqueues = append(r.ls.unqueues, &unqueueReq{id: id})
		r.ls.unqueueDeclined(nil)
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, "committed nothing; the model removes the queued item")
		}
	}
}

// A cancel-queued commit is reported when the model answers without one
// (the id was never queued), and passes when the model removes the item.
func TestUnqueueInputRejectsACommitForAnUnqueuedID(t *testing.T) {
	for _, broken := range []bool{false, true} {
		r := bareRunner()
		require.NoError(t, r.ls.m.Enqueue("e1", "steer", `{"role":"user"}`))
		r.ls.m.TakeTX()
		id := "e1"
		if broken {
			id = "never-queued"
		}
		r.ls.unqueues = append(r.ls.unqueues, &unqueueReq{id: id})
		err := r.ls.unqueueInput(nil)()
		if broken {
			require.ErrorContains(t, err, "the model answers not_found without a commit")
		} else {
			require.NoError(t, err)
		}
	}
}

// checkSeqs reports an acknowledged commit whose seqs are not consecutive
// or do not follow the last commit's, and checkEventSeq an event whose seq
// is not its row's.
func TestSeqCheckerRejectsOtherSeqs(t *testing.T) {
	entry := store.Write{Kind: store.WriteEntry, Entry: &store.Entry{ID: "e1"}}
	usage := store.Write{Kind: store.WriteUsage, Usage: &store.UsageRow{ID: "u1"}}
	for _, tc := range []struct {
		name  string
		res   []store.CommitResult // the commits of entry, then of usage
		event lane.Event
		want  string // the failure, "" for none
	}{
		{"sound", []store.CommitResult{{FirstSeq: 3, Seqs: []int64{3}}, {FirstSeq: 4, Seqs: []int64{4}}},
			lane.Event{Type: lane.EvUsage, UsageID: "u1", Seq: 4}, ""},
		{"not consecutive", []store.CommitResult{{FirstSeq: 3, Seqs: []int64{4}}}, lane.Event{},
			"acknowledged seqs [4] (first 3) for 1 writes: not consecutive in write order"},
		{"a step back", []store.CommitResult{{FirstSeq: 3, Seqs: []int64{3}}, {FirstSeq: 3, Seqs: []int64{3}}}, lane.Event{},
			"acknowledged first seq 3 does not follow the previous transaction's last seq 3"},
		{"another row's seq", []store.CommitResult{{FirstSeq: 3, Seqs: []int64{3}}, {FirstSeq: 4, Seqs: []int64{4}}},
			lane.Event{Type: lane.EvEntryAdded, EntryID: "e1", Seq: 4}, "entry_added event carries seq 4; its row's acknowledged write got 3 (acknowledged: true)"},
		{"an unacknowledged row", []store.CommitResult{{FirstSeq: 3, Seqs: []int64{3}}},
			lane.Event{Type: lane.EvUsage, UsageID: "u1", Seq: 4}, "usage event carries seq 4; its row's acknowledged write got 0 (acknowledged: false)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bareRunner()
			ok := true
			for i, res := range tc.res {
				ok = ok && r.seqs.checkSeqs([]store.Write{entry, usage}[i:i+1], res)
			}
			if ok && tc.event.Type != "" {
				ok = r.seqs.checkEventSeq(tc.event)
			}
			require.Equal(t, tc.want == "", ok)
			require.Equal(t, tc.want != "", r.failed, r.msg)
			if tc.want != "" {
				require.Contains(t, r.msg, tc.want)
			}
		})
	}
}

// I1 (intentChecker.streamOpen): a provider request whose response has no
// committed intent is reported, one whose intent is committed is not.
func TestIntentCheckerRejectsARequestWithoutIntent(t *testing.T) {
	for _, committed := range []bool{true, false} {
		r := bareRunner()
		if committed {
			r.intent.reserve("r1")
		}
		r.intent.streamOpen(&simStream{r: r, req: lane.Request{OperationID: "op", ResponseEntryID: "r1"}})
		require.Equal(t, !committed, r.failed, r.msg)
		if !committed {
			require.Contains(t, r.msg, "I1: provider request for r1 without its committed intent")
		}
	}
}

// checkClientFold reports a client fold that follows another operation
// than the lane's current one.
func TestCheckClientFoldRejectsAnotherOperation(t *testing.T) {
	for _, broken := range []bool{false, true} {
		st, _, op := effectPendingTwins(t)
		r := bareRunner()
		r.ln = openTestLane(t, st)
		r.client.fold = &lane.ClientFold{Lane: laneName, OperationID: op}
		if broken {
			r.client.fold.OperationID = "another"
		}
		r.client.check("test")
		require.Equal(t, broken, r.failed, r.msg)
		if broken {
			require.Contains(t, r.msg, `the client fold follows operation "another"`)
		}
	}
}
