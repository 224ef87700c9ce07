package lane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/compaction"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
)

// thresholdWindow makes the harness's registry know the test model (and
// only it) with the given context window; the runs reserve 16384 tokens, so
// a window of 16384 compacts any context and 16385 one over a token.
func (h *harness) thresholdWindow(window *float64) {
	h.models = func(m ModelRef) (float64, bool) {
		return *window, m == defaultRun(1).Configuration.Model
	}
}

// compactionRun is a run whose settings.compaction is compaction.
func compactionRun(compaction string) RunOptions {
	run := defaultRun(1)
	run.Settings = mustParse(`{"compaction":` + compaction + `}`)
	return run
}

// toCheckpoint starts run and steps it to its need_assistant checkpoint.
func (h *harness) toCheckpoint(run RunOptions) string {
	op, err := h.lane.StartRun(run)
	require.NoError(h.t, err)
	r, err := h.lane.Step(StepOptions{})
	require.NoError(h.t, err)
	require.Equal(h.t, StepProgress, r.Kind)
	require.Equal(h.t, LeafCheckpoint, h.stateOf(op).At)
	return op
}

// runtime/drive/checkpoint.ts runCheckpoint (with structural.ts
// prepareCompactionThreshold): a need_assistant boundary whose context is
// over the model's window less reserveTokens commits pi.op.preparation,
// the op state at summary.deciding with a threshold task resuming the
// checkpoint, and the lane state; it emits compaction_start, and the run
// then waits for the summary.
func TestThresholdBoundaryCompacts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, b)
		window := 16384.0
		h.thresholdWindow(&window)
		l := h.open()
		op := h.toCheckpoint(compactionRun(compactionConfig))
		user := h.firstEntryID()
		h.resetEvents()
		commits := len(h.tele)
		r, err := l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepProgress}, r)
		require.Equal(t, []string{"value:set:pi.op.preparation", "value:set:pi.op.state", "value:set:pi.lane.state"},
			h.lastTX(len(h.tele)-commits))
		task := envtest.IDsAfter(2).NewID()
		require.Equal(t, `{"control":{"status":"running"},"settings":{"compaction":`+compactionConfig+`},"latestAssistantEntryId":null,`+
			`"at":"summary.deciding","task":{"taskId":"`+task+`","reason":"threshold","boundary":{"kind":"resume_checkpoint",`+
			`"resumeAfter":{"continuation":{"kind":"need_assistant","overflowRecoveryUsed":false},"triggerEntryId":"`+user+`"}}}}`,
			h.stateJSON(op))
		v, err := h.store.GetValue(PreparationAddr(op, task))
		require.NoError(t, err)
		require.NotNil(t, v)
		require.Equal(t, `{"kind":"compaction","messagesToSummarize":[],"turnPrefixMessages":[],"retainedTail":[`+h.firstMessageJSON()+
			`],"isSplitTurn":false,"tokensBefore":1,"fileOps":{"read":[],"written":[],"edited":[]},"settings":`+compactionConfig+`}`,
			string(v.Value))
		require.Equal(t, []string{string(EvCompactionStart)}, h.eventTypes())
		require.Equal(t, "threshold", h.events[0].Reason)
		r, err = l.Step(StepOptions{})
		require.NoError(t, err)
		require.Equal(t, StepResult{Kind: StepWaiting, Reason: "summary"}, r)
	})
}

// compaction/compaction.ts shouldCompact: the context must be strictly
// over contextWindow - reserveTokens, so a context of exactly that size
// (1 token: "hi") does not compact and the boundary mints the step.
func TestThresholdBoundaryAtTheLimitDoesNotCompact(t *testing.T) {
	h := newHarness(t, backends[0])
	window := 16385.0
	h.thresholdWindow(&window)
	l := h.open()
	op := h.toCheckpoint(compactionRun(compactionConfig))
	h.resetEvents()
	_, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, LeafAssistantReady, h.stateOf(op).At)
	require.Empty(t, h.eventTypes())
}

// runtime/drive/structural.ts prepareCompactionThreshold: nothing is read
// or compacted when settings.compaction.enabled is false or when
// lane.models.getModel does not know the lane's model (a nil registry is
// one that knows none); the boundary mints the step.
func TestThresholdSkipsDisabledOrUnknownModel(t *testing.T) {
	disabled := `{"enabled":false,"reserveTokens":16384,"keepRecentTokens":20000}`
	for name, c := range map[string]struct {
		compaction string
		models     Models
	}{
		"disabled":      {disabled, func(ModelRef) (float64, bool) { return 1, true }},
		"unknown model": {compactionConfig, func(ModelRef) (float64, bool) { return 1, false }},
		"no registry":   {compactionConfig, nil},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, backends[0])
			h.models = c.models
			l := h.open()
			op := h.toCheckpoint(compactionRun(c.compaction))
			_, err := l.Step(StepOptions{})
			require.NoError(t, err)
			require.Equal(t, LeafAssistantReady, h.stateOf(op).At, "a window of 1 compacts any context it is asked about")
		})
	}
}

// runtime/drive/structural.ts prepareCompactionThreshold: with a registry,
// a settings.compaction that is missing throws V8's TypeError reading
// `enabled`, which faults the harness.
func TestThresholdWithoutCompactionSettingsFaults(t *testing.T) {
	h := newHarness(t, backends[0])
	window := 16384.0
	h.thresholdWindow(&window)
	l := h.open()
	h.toCheckpoint(defaultRun(1))
	_, err := l.Step(StepOptions{})
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.Equal(t, "Cannot read properties of undefined (reading 'enabled')", hf.Cause.Error())
}

// runtime/drive/checkpoint.ts runCheckpoint: a may_finish boundary over
// the threshold compacts instead of finishing the run; its task resumes
// the may_finish checkpoint triggered by the settled response.
func TestThresholdMayFinishBoundaryCompacts(t *testing.T) {
	h := newHarness(t, backends[0])
	window := 1e9
	h.thresholdWindow(&window)
	l := h.open()
	op := h.startRun(compactionRun(compactionConfig))
	h.provider.add(helloScript())
	_, err := l.Step(StepOptions{})
	require.NoError(t, err)
	st := h.stateOf(op)
	require.Equal(t, LeafCheckpoint, st.At)
	window = 16384
	h.resetEvents()
	r, err := l.Step(StepOptions{})
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
	got := h.stateOf(op)
	require.Equal(t, LeafSummaryDeciding, got.At)
	require.Equal(t, `{"kind":"resume_checkpoint","resumeAfter":{"continuation":{"kind":"may_finish","includeFinalAssistant":true},`+
		`"triggerEntryId":"`+st.TriggerEntryID+`"}}`, string(got.Task.Prop("boundary").AppendJSON(nil)))
	require.Equal(t, []string{string(EvCompactionStart)}, h.eventTypes(), "no run_end")
}

// seedCheckpoint commits, before the lane opens, the branch entries (each
// the parent of the next; an id starting with "c" is a compaction entry)
// and a run at a need_assistant checkpoint triggered by trigger.
func (h *harness) seedCheckpoint(t *testing.T, op, trigger string, ids ...string) {
	user := `{"role":"user","content":"old question","timestamp":1}`
	var writes []store.Write
	var parent *string
	for _, id := range ids {
		raw := messageEntryRaw(id, parent, []byte(user))
		if id[0] == 'c' {
			raw = []byte(`{"id":"` + id + `","parentId":"` + *parent + `","type":"compaction","summary":"S","retainedTail":[` +
				user + `],"tokensBefore":5,"fromHook":false}`)
		}
		writes = append(writes, store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: raw}))
		parent = &id
	}
	st := &OpState{At: LeafCheckpoint, Settings: compactionRun(compactionConfig).Settings,
		Continuation: Continuation{Kind: ContinueNeedAssistant}, TriggerEntryID: trigger}
	meta := OpMeta{OperationID: op, Kind: "run", SourceTipID: parent, StartedAt: 1}
	ls := LaneState{CurrentOperationID: &op}
	_, err := h.store.Commit(append(writes,
		store.SetValueRaw(BranchTipAddr("main"), []byte(`"`+*parent+`"`)),
		store.SetValueRaw(LaneConfigAddr("main"), defaultRun(1).Configuration.value().AppendJSON(nil)),
		store.SetValueRaw(OpMetaAddr(op), meta.raw()),
		store.SetValueRaw(OpStateAddr(op), MarshalState(st)),
		store.SetValueRaw(LaneStateAddr("main"), ls.raw())))
	require.NoError(t, err)
}

// openSeeded opens the lane on seeded storage with the stream options and
// retry policy a boundary needs (Config.Generation).
func (h *harness) openSeeded() *Lane {
	cfg := h.config()
	cfg.Generation = &GenerationConfig{Configuration: defaultRun(1).Configuration, RetryPolicy: defaultRun(1).RetryPolicy}
	l, err := Open(cfg)
	require.NoError(h.t, err)
	h.lane = l
	return l
}

// runtime/drive/structural.ts prepareCompactionThreshold: the bounded
// branch starts at its newest compaction; a compaction at or after the
// checkpoint's trigger guards it (nothing compacts, the step is minted),
// while a trigger after that compaction is compacted again.
func TestThresholdGuardedByNewerCompaction(t *testing.T) {
	for _, c := range []struct {
		trigger string
		ids     []string
		want    Leaf
	}{
		{"u0", []string{"u0", "c1"}, LeafAssistantReady},       // the trigger is behind the compaction
		{"c1", []string{"u0", "c1", "u2"}, LeafAssistantReady}, // the compaction is the trigger
		{"u2", []string{"u0", "c1", "u2"}, LeafSummaryDeciding},
	} {
		h := newHarness(t, backends[0])
		window := 16384.0
		h.thresholdWindow(&window)
		h.seedCheckpoint(t, "op1", c.trigger, c.ids...)
		l := h.openSeeded()
		_, err := l.Step(StepOptions{})
		require.NoError(t, err, "trigger %s", c.trigger)
		require.Equal(t, c.want, h.stateOf("op1").At, "trigger %s", c.trigger)
	}
}

// runtime/drive/structural.ts prepareCompactionThreshold: a trigger that
// is not on the bounded branch (and no compaction guards it) is pi's
// SessionInvariantError, which faults the harness before any commit.
func TestThresholdMissingTriggerFaults(t *testing.T) {
	h := newHarness(t, backends[0])
	window := 16384.0
	h.thresholdWindow(&window)
	h.seedCheckpoint(t, "op1", "gone", "u0", "u1")
	l := h.openSeeded()
	_, err := l.Step(StepOptions{})
	var hf *HarnessFault
	require.ErrorAs(t, err, &hf)
	require.Equal(t, "Checkpoint trigger gone is missing from its Branch", hf.Cause.Error())
	require.Empty(t, h.tele)
}

// runtime/drive/checkpoint.ts runCheckpoint: readBoundedEntries answers
// cancel_requested for a run cancelled after the step read it, so the
// boundary commits nothing and the next step reconciles the cancellation.
func TestThresholdReadAfterCancelCommitsNothing(t *testing.T) {
	h := newHarness(t, backends[0])
	window := 16384.0
	h.thresholdWindow(&window)
	l := h.open()
	op := h.toCheckpoint(compactionRun(compactionConfig))
	read := l.Current()
	require.NoError(t, l.RequestCancel())
	commits := len(h.tele)
	r, err := l.runCheckpoint(op, read.State)
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
	require.Len(t, h.tele, commits)
	r, err = l.finishBoundary(op, read.State)
	require.NoError(t, err)
	require.Equal(t, StepResult{Kind: StepProgress}, r)
	require.Len(t, h.tele, commits)
}

// runtime/drive/structural.ts prepareCompactionThreshold: the trigger's
// index is branch.findIndex(entry => entry.id === triggerEntryId), the
// first entry with the id, so a compaction after it guards the trigger even
// when a later entry repeats the id (the lane used to take the last one).
func TestGuardedTriggerTakesTheFirstEntryWithTheID(t *testing.T) {
	path := []compaction.Entry{{ID: "t"}, {ID: "c", Type: "compaction"}, {ID: "t"}}
	guarded, err := guardedTrigger(path, "t")
	require.NoError(t, err)
	require.True(t, guarded)
}
