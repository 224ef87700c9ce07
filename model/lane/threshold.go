package lane

import (
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
)

// Threshold compaction at a run boundary, from pi's rules
// (runtime/drive/checkpoint.ts runCheckpoint, structural.ts
// prepareCompactionThreshold, compaction.ts shouldCompact):
//
//   - every checkpoint step (need_assistant or may_finish) first asks
//     whether the run compacts; it asks nothing when the run's
//     settings.compaction is not enabled or the model registry
//     (Config.ContextWindows) does not know the lane's configured model;
//     a run with no settings.compaction throws reading `enabled`;
//   - asking is one read of the branch on the line (a first turn); a
//     cancel that arrived since dispatch, or a lost operation, ends the
//     step there, as every read through continueOperation does;
//   - a compaction on the branch at or after the checkpoint's trigger
//     guards it: no compaction; a trigger not on the branch is an
//     invariant fault;
//   - otherwise the run compacts when the preparation's tokensBefore is
//     over the window less reserveTokens;
//   - a compacting boundary that places no queued message commits the
//     preparation and moves to summary.deciding with a "threshold" task
//     whose boundary resumes the checkpoint; it places no followUp items
//     then, and emits compaction_start after the placement's events. A
//     placed message starts the assistant step as without compaction.

// thresholdAnswer is what the boundary's threshold question answered.
type thresholdAnswer struct {
	prep  string // the preparation's canonical JSON: the run compacts
	fault string // pi throws
}

// summaryTask is a summary.deciding state's threshold task: its id and
// the checkpoint it resumes.
type summaryTask struct {
	id           string
	continuation pi.JSONValue
	trigger      string
}

const msgNoEnabled = "Cannot read properties of undefined (reading 'enabled')"

// thresholdAsks says whether a checkpoint step of op asks the threshold
// question (a read on the line), and pi's TypeError when the run has no
// settings.compaction to ask with.
func (m *Model) thresholdAsks(op string) (asks bool, fault string) {
	if m.cfg.ContextWindows == nil {
		return false, ""
	}
	c := m.ops[op].run.Compaction
	if c == nil {
		return false, msgNoEnabled
	}
	_, known := m.window()
	return c.Enabled && known, ""
}

// window is the registry's context window for the lane's model.
func (m *Model) window() (float64, bool) {
	if m.config == nil {
		return 0, false
	}
	w, ok := m.cfg.ContextWindows[m.config.Model]
	return w, ok
}

// threshold answers the question for the current checkpoint (once per
// step: nothing it reads changes before the boundary commits).
func (m *Model) threshold(op string, o Op) thresholdAnswer {
	if m.th != nil {
		return *m.th
	}
	var a thresholdAnswer
	if asks, _ := m.thresholdAsks(op); asks {
		a = m.answerThreshold(op, o)
	}
	m.th = &a
	return a
}

func (m *Model) answerThreshold(op string, o Op) thresholdAnswer {
	path, err := m.branchPath()
	if err != nil {
		return thresholdAnswer{fault: err.Error()}
	}
	_, trigger := m.ops[op].checkpointResume(o)
	if guarded, fault := triggerGuard(path, trigger); guarded || fault != "" {
		return thresholdAnswer{fault: fault}
	}
	c := m.ops[op].run.Compaction
	prep, before, ok, thrown := preparation(path, c)
	if thrown != "" || !ok {
		return thresholdAnswer{fault: thrown}
	}
	if w, _ := m.window(); before > w-c.ReserveTokens {
		return thresholdAnswer{prep: prep}
	}
	return thresholdAnswer{}
}

// triggerGuard is prepareCompactionThreshold's test, in pi's order: the
// trigger's index is the first path entry with its id (findIndex), the
// guard the last compaction (a scan from the end); a guard at or after the
// trigger, or any guard when the trigger is not on the path, means no
// compaction, and a trigger not on the path otherwise is pi's invariant
// error.
func triggerGuard(path []pathItem, trigger string) (guarded bool, fault string) {
	at := slices.IndexFunc(path, func(p pathItem) bool { return p.id == trigger })
	newest := -1
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].compaction {
			newest = i
			break
		}
	}
	if newest >= at && newest != -1 {
		return true, ""
	}
	if at == -1 {
		return false, fmt.Sprintf("Checkpoint trigger %s is missing from its Branch", trigger)
	}
	return false, ""
}

// BoundaryTask: the summary task id a boundary's threshold compaction
// minted ("" when it compacted nothing). The driver gives it before the
// boundary's input (Checkpoint, or StepDone for a may_finish boundary);
// the model decides whether one was due.
func (m *Model) BoundaryTask(taskID string) { m.boundaryTask = taskID }

// compactAtBoundary is the compacting boundary's TX after the placement
// of items (none place a message): the preparation under the task, the
// op state at summary.deciding, the lane state; compaction_start follows
// the placement's events.
func (m *Model) compactAtBoundary(id string, o Op, prep string, items []InboxItem) error {
	task := m.boundaryTask
	m.boundaryTask = ""
	if err := m.fresh(task); err != nil {
		return fmt.Errorf("model/lane: the boundary compacts past the threshold, but its task id: %w", err)
	}
	info := m.ops[id]
	cont, trigger := info.checkpointResume(o)
	info.task = &summaryTask{id: task, continuation: cont, trigger: trigger}
	ws := append(m.boundaryWrites(items), TXWrite{Kind: "value", Op: "set", Namespace: nsPrep, Key: id + ":" + task, Value: prep})
	m.expectTX(append(ws, setValue(nsOpState, id, ""), setValue(nsLaneState, m.cfg.Lane, ""))...)
	m.st.Ops[id] = Op{At: AtSummaryDeciding, Preparation: prep, CancelRequested: o.CancelRequested, RequestedAt: o.RequestedAt,
		LatestAssistantEntryID: o.LatestAssistantEntryID}
	m.placedEvents(items)
	m.emit(CompactionStartEvent("threshold", m.commitTime()), false)
	m.boundary = true
	return nil
}

// noTaskExpected refuses a task id given to a boundary that did not compact.
func (m *Model) noTaskExpected() error {
	task := m.boundaryTask
	m.boundaryTask = ""
	if task != "" {
		return fmt.Errorf("model/lane: the boundary is not past the threshold (or places a message), but the lane minted summary task %s", task)
	}
	return nil
}
