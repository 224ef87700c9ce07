package lane

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// Required: Memory/JSONL/SQLite reduce identical frame sequences.
func TestRequiredBackendsReduceIdenticalFrameSequences(t *testing.T) {
	var ref []string
	var refMsg []byte
	for _, b := range backends {
		h := newHarness(t, b)
		op, resp, _ := crashRun(t, h, 3, interleavedScript(), 12)
		var vals []string
		var fs []pi.Frame
		for _, e := range h.frameList(op, resp) {
			vals = append(vals, string(e.Value))
			f, err := pi.ParseFrame(string(e.Value))
			require.NoError(t, err)
			fs = append(fs, *f)
		}
		m, err := frames.Reduce(fs)
		require.NoError(t, err)
		raw, _ := pi.Marshal(m)
		if ref == nil {
			ref, refMsg = vals, raw
			continue
		}
		require.Empty(t, cmp.Diff(ref, vals), b.name)
		require.Equal(t, string(refMsg), string(raw), b.name)
	}
	require.Len(t, ref, 10)
}

// Required: frame list is absent after normal, synthetic, cancellation and
// external terminal transitions.
func TestRequiredFrameListAbsentAfterTerminalTransitions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		t.Run("normal", func(t *testing.T) {
			h := newHarness(t, b)
			l := h.open()
			op := h.start(1)
			h.provider.add(helloScript())
			_, err := l.Drive(StepOptions{})
			require.NoError(t, err)
			require.Empty(t, h.frameList(op, h.provider.requests[0].ResponseEntryID))
		})
		t.Run("synthetic", func(t *testing.T) {
			h := newHarness(t, b)
			op, resp, _ := crashRun(t, h, 1, helloScript(), 5)
			r, err := h.lane.Drive(StepOptions{})
			require.NoError(t, err)
			require.Equal(t, "failed", r.Status)
			require.Empty(t, h.frameList(op, resp))
		})
		t.Run("cancellation", func(t *testing.T) {
			h := newHarness(t, b)
			op, resp, _ := crashRun(t, h, 3, helloScript(), 5)
			require.NoError(t, h.lane.RequestCancel())
			r, err := h.lane.Drive(StepOptions{})
			require.NoError(t, err)
			require.Equal(t, "aborted", r.Status)
			require.Empty(t, h.frameList(op, resp))
		})
		t.Run("external", func(t *testing.T) {
			h := newHarness(t, b)
			op, resp, _ := crashRun(t, h, 3, helloScript(), 5)
			require.Len(t, h.frameList(op, resp), 3)
			require.NoError(t, h.lane.Finalize("aborted", nil))
			require.Empty(t, h.frameList(op, resp))
			require.Nil(t, h.stateOf(op))
			require.Contains(t, h.resultOf(op), `"status":"aborted"`)
		})
	})
}

// Race: append first is deleted by cleanup; finalization first fences the
// append, which recreates nothing.
func TestRaceAppendVersusExternalFinalization(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		h.skipStale = true // the settlement races an external finalization
		l := h.open()
		op := h.start(1)
		gate := env.Goroutines{}.NewFuture("gate")
		h.gated.gate, h.gated.match = gate, isFrameAppend
		s := helloScript()
		var fin env.Future
		s.before = func(i int) {
			if i == 2 { // start + text_start frames are queued (parked) ahead
				fin = l.FinalizeAsync("aborted", nil)
			}
			if i == 4 {
				gate.Resolve(nil)
			}
		}
		h.provider.add(s)
		r, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		require.NoError(t, fin.Wait())
		require.Equal(t, StepIdle, r.Kind, "settlement found the operation finalized")
		resp := h.provider.requests[0].ResponseEntryID
		require.Equal(t, 2, h.outcomes(FrameCommitted), "appends before finalization commit")
		require.Equal(t, 3, h.outcomes(FrameDeclined), "appends after finalization are fenced")
		require.Empty(t, h.frameList(op, resp))
		es, _ := h.store.Entries()
		require.Len(t, es, 1, "no response entry after external finalization")
	})
}

// Required: idle fork excludes frames.
func TestRequiredIdleForkExcludesFrames(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		h.start(1)
		h.provider.add(helloScript())
		_, err := l.Drive(StepOptions{}) // one completed run: result, usage rows
		require.NoError(t, err)
		op2, resp2, _ := crashRun(t, h, 3, helloScript(), 5) // leaves effect_pending frames
		require.NotEmpty(t, h.frameList(op2, resp2))
		st, err := ForkState(h.store, ForkOptions{UnconfiguredLanes: true})
		require.NoError(t, err)
		dst := memory.FromState(h.clock, st)
		els, err := dst.ReadList(FramesAddr(op2, resp2), store.ReadOptions{})
		require.NoError(t, err)
		require.Empty(t, els)
		us, err := dst.Usage()
		require.NoError(t, err)
		require.Empty(t, us)
		for _, ns := range []string{NSOpMeta, NSOpState, NSResult} {
			vs, err := dst.ScanValues(ns, "")
			require.NoError(t, err)
			require.Empty(t, vs, ns)
		}
		srcEntries, _ := h.store.Entries()
		dstEntries, _ := dst.Entries()
		require.Equal(t, len(srcEntries), len(dstEntries))
		for i := range srcEntries {
			require.Equal(t, srcEntries[i].Seq, dstEntries[i].Seq, "fork keeps source seqs")
		}
		_, _, err = ForkWrites(h.store, ForkOptions{UnconfiguredLanes: true, ExtraNamespaces: []string{"pi.pending.assistant_frame"}})
		require.Error(t, err)
	})
}

// Required: JSONL compaction removes deleted frame bytes.
func TestRequiredJSONLCompactionRemovesDeletedFrameBytes(t *testing.T) {
	clock := newClock()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	e := env.Env{Clock: clock, FS: env.OSFS{}, IDs: &envtest.IDs{}, Executor: env.Goroutines{}}
	st, err := jsonl.Create(e, path, jsonl.Header{ID: "c", StorageVersion: 1, Cwd: "/"}, jsonl.Options{})
	require.NoError(t, err)
	defer st.Close()
	h := &harness{t: t, clock: clock, ids: &envtest.IDs{}, provider: &fakeProvider{}, store: st}
	h.gated = &gatedStore{Storage: st}
	l := h.open()
	h.start(1)
	a := newAcc()
	marker := "FRAME-BYTES-MARKER"
	h.provider.add(seq(a.start(), a.textStart(0), a.textDelta(0, marker), a.textDelta(0, "!"), a.textEnd(0, "final"), a.done(pi.StopStop)))
	_, err = l.Drive(StepOptions{})
	require.NoError(t, err)
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(raw), marker, "logical delete keeps the bytes until compaction")
	require.NoError(t, st.Compact())
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	require.NotContains(t, string(raw), marker)
	require.NotContains(t, string(raw), NSAssistantFrame)
}

// Required: migration maps or explicitly discards every legacy frame.
func TestRequiredMigrationMapsOrDiscardsEveryLegacyFrame(t *testing.T) {
	// A storage image with one effect_pending response's frames.
	h := newHarness(t, backends[0])
	op, resp, _ := crashRun(t, h, 3, helloScript(), 7)
	var image []store.CommittedWrite
	els := h.frameList(op, resp)
	require.Len(t, els, 5)
	for _, e := range els {
		image = append(image, store.CommittedWrite{Write: store.AppendListRaw(FramesAddr(op, resp), e.Value), Seq: e.Seq})
	}
	other := store.CommittedWrite{Write: store.SetValueRaw(OpStateAddr(op), json.RawMessage(`{"x":1}`)), Seq: 1}
	image = append([]store.CommittedWrite{other}, image...)

	// Map: every element kept at its seq (here: a legacy text_delta spelled "d").
	legacy := make([]store.CommittedWrite, len(image))
	copy(legacy, image)
	for i := range legacy {
		if legacy[i].Kind == store.WriteList {
			legacy[i].Value = json.RawMessage(strings.Replace(string(legacy[i].Value), `"delta"`, `"d"`, 1))
		}
	}
	mapper := func(old json.RawMessage) (json.RawMessage, bool) {
		return json.RawMessage(strings.Replace(string(old), `"d":`, `"delta":`, 1)), true
	}
	out, dropped, err := MigrateFrames(legacy, mapper)
	require.NoError(t, err)
	require.Empty(t, dropped)
	require.Empty(t, cmp.Diff(image, out), "every element mapped, seq kept")

	// Discard: one unmappable element drops the whole list; nothing else changes.
	bad := func(old json.RawMessage) (json.RawMessage, bool) {
		return old, !strings.Contains(string(old), `"text_end"`)
	}
	out, dropped, err = MigrateFrames(image, bad)
	require.NoError(t, err)
	require.Equal(t, []string{op + ":" + resp}, dropped)
	require.Equal(t, []store.CommittedWrite{other}, out, "whole list deleted, state untouched")

	// Recovery after a discard sees no partial and still settles as unknown outcome.
	st := store.NewState()
	var keep []store.CommittedWrite
	for _, w := range mustSnapshot(t, h) {
		if !(w.Kind == store.WriteList && w.Namespace == NSAssistantFrame) {
			keep = append(keep, w)
		}
	}
	migrated, _, err := MigrateFrames(mustSnapshot(t, h), nil)
	require.NoError(t, err)
	require.Equal(t, keep, migrated)
	require.NoError(t, st.Validate(migrated))
	st.Apply(migrated)
	h2 := newHarness(t, backends[0])
	h2.store = memory.FromState(h2.clock, st)
	h2.gated.Storage = h2.store
	l := h2.open()
	_, err = l.Step(StepOptions{})
	require.NoError(t, err)
	m := h2.entryMessage(resp)
	require.Equal(t, "unknown", m.API, "no partial after an explicit discard; completion never inferred")
	require.Equal(t, pi.StopError, m.StopReason)
}

// mustSnapshot rebuilds a committed-write image of a harness store from its
// public reads (entries, usage, the lane's values and the one frame list).
func mustSnapshot(t *testing.T, h *harness) []store.CommittedWrite {
	var out []store.CommittedWrite
	es, err := h.store.Entries()
	require.NoError(t, err)
	for _, e := range es {
		out = append(out, store.CommittedWrite{Write: store.InsertEntry(e.Entry), Seq: e.Seq, Timestamp: e.Timestamp})
	}
	us, err := h.store.Usage()
	require.NoError(t, err)
	for _, u := range us {
		out = append(out, store.CommittedWrite{Write: store.InsertUsage(u.Row), Seq: u.Seq})
	}
	for _, ns := range []string{NSBranchTip, NSLaneConfig, NSLaneState, NSOpMeta, NSOpState, NSResult} {
		vs, err := h.store.ScanValues(ns, "")
		require.NoError(t, err)
		for _, v := range vs {
			out = append(out, store.CommittedWrite{Write: store.SetValueRaw(v.Address, v.Value), Seq: v.Seq})
		}
	}
	cur := h.lane.Current()
	if cur != nil && cur.State.At.IsEffectPending() {
		for _, e := range h.frameList(cur.ID, cur.State.ResponseEntryID) {
			out = append(out, store.CommittedWrite{Write: store.AppendListRaw(FramesAddr(cur.ID, cur.State.ResponseEntryID), e.Value), Seq: e.Seq})
		}
	}
	sortBySeq(out)
	return out
}

func sortBySeq(ws []store.CommittedWrite) {
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && ws[j].Seq < ws[j-1].Seq; j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// Required: instrumentation records append/delete ordering without frame
// content in telemetry.
func TestRequiredTelemetryRecordsAppendDeleteOrderWithoutContent(t *testing.T) {
	typ := reflect.TypeOf(TelemetryRecord{})
	for i := 0; i < typ.NumField(); i++ {
		k := typ.Field(i).Type.Kind()
		require.NotEqual(t, reflect.Slice, k, "telemetry field %s could carry content", typ.Field(i).Name)
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		a := newAcc()
		secret := "SECRET-CONTENT"
		h.provider.add(seq(a.start(), a.textStart(0), a.textDelta(0, secret), a.textEnd(0, secret), a.done(pi.StopStop)))
		_, err := l.Drive(StepOptions{})
		require.NoError(t, err)
		resp := h.provider.requests[0].ResponseEntryID
		var order []string
		var lastSeq int64
		for _, r := range h.tele {
			require.NotContains(t, r.Kind+r.Op+r.Namespace+r.Key, secret)
			if r.Kind == "list" && r.Key == op+":"+resp {
				order = append(order, r.Op)
				require.Greater(t, r.Seq, lastSeq)
				lastSeq = r.Seq
			}
		}
		require.Equal(t, []string{"append", "append", "append", "append", "delete"}, order)
	})
}

// runtime/lane.ts settleOperation: a drive step's settlement or terminal
// transaction whose operation is no longer current finds state.operation
// null and faults the harness (pi's default). With SkipStaleSettlement, for
// frameproof's external finalization racing a step, it is stale progress,
// exactly like a settlement that lost the same race (found by sim/lanesim).
func TestTerminalStepAfterExternalFinalization(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		l := h.open()
		op := h.start(1)
		require.NoError(t, l.Finalize("aborted", nil))
		_, err := l.terminate("finish", "completed", nil, op)
		var hf *HarnessFault
		require.ErrorAs(t, err, &hf)
		require.Equal(t, "Cannot read properties of null (reading 'state')", hf.Cause.Error())

		h = newHarness(t, b)
		h.skipStale = true
		l = h.open()
		op = h.start(1)
		require.NoError(t, l.Finalize("aborted", nil))
		r, err := l.terminate("finish", "completed", nil, op)
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepProgress, Reason: "stale"}, r)
		_, err = l.terminate("finish", "completed", nil, "")
		require.ErrorIs(t, err, ErrNoOperation, "an untargeted terminal with no operation still fails")
	})
}
