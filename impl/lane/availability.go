package lane

import (
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// pi's configuration failure codes and messages (runtime/drive/generation.ts
// configurationError, deferred.ts configurationError).
const (
	CodeModelUnavailable = "model_unavailable"
	CodeToolsUnavailable = "configured_tools_unavailable"
	MsgModelUnavailable  = "The configured model is unavailable in this process"
	MsgToolsUnavailable  = "One or more configured tools are unavailable in this process"
)

// unavailable is generation.ts prepareGeneration's configuration check, run
// before a generation's intent: the run's model unknown to Config.Models is
// model_unavailable {provider, modelId}; otherwise the active tool names
// missing from Config.Tools, in activeToolNames order, are
// configured_tools_unavailable {tools}. nil: the generation may go on.
//
// A nil Config.Models is no registry (every model is the Provider's) and a
// nil Config.Tools no tool list (the caller answers tool calls), so neither
// is checked then; pi's harness always has both (options.models,
// config.tools), and an empty, non-nil Tools is pi's empty config.tools.
func (l *Lane) unavailable(g *GenerationContext) *OpError {
	if g == nil {
		return nil
	}
	c := &g.Configuration
	if err := l.modelUnavailable(c.Model); err != nil {
		return err
	}
	if l.cfg.Tools == nil {
		return nil
	}
	var missing []pi.JSONValue
	for _, name := range c.ActiveToolNames {
		if !l.hasTool(name) {
			missing = append(missing, pi.StringValue(name))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	d := pi.NewObject()
	d.Set("tools", pi.ArrayValue(missing))
	return &OpError{Code: CodeToolsUnavailable, Message: MsgToolsUnavailable, Details: pi.ObjectValue(d)}
}

// modelUnavailable is the registry question of prepareGeneration and of
// deferred.ts prepareDeferredPoll: lane.models.getModel(provider, modelId)
// undefined is model_unavailable with the identity as details.
func (l *Lane) modelUnavailable(m ModelRef) *OpError {
	if l.cfg.Models == nil {
		return nil
	}
	if _, ok := l.cfg.Models(m); ok {
		return nil
	}
	d := pi.NewObject()
	d.Set("provider", pi.StringValue(m.Provider))
	d.Set("modelId", pi.StringValue(m.ModelID))
	return &OpError{Code: CodeModelUnavailable, Message: MsgModelUnavailable, Details: pi.ObjectValue(d)}
}

func (l *Lane) hasTool(name string) bool {
	for _, t := range l.cfg.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// failConfiguration is response.ts publishConfigurationFailure: through
// continueOperation, so a cancel requested since the step read its state
// declines (nothing commits; the next step reconciles) and an operation
// gone from the lane is pi's null read (lostOperation); otherwise the
// operation finishes failed with opErr, cleanup and result in one
// transaction, followed by run_end {status:"failed", error, fromTipId,
// tipId, endedAt}. A run without a branch tip is pi's invariant error.
func (l *Lane) failConfiguration(op string, s *OpState, opErr *OpError) (StepResult, error) {
	var rec ResultRecord
	_, committed, err := l.command(CmdConfigurationFailure, thenEmit(func(cur view) (plan, error) {
		if cur.op == nil {
			return plan{}, l.lostOperation(cur)
		}
		if cur.op.ID != op || cur.op.State.At != s.At || cur.op.State.ResponseEntryID != s.ResponseEntryID ||
			cur.op.State.Control.CancelRequested {
			return plan{}, nil // continueOperation: cancel_requested or moved on
		}
		if cur.tip == nil {
			return plan{}, &invariantError{"Failed run has no Branch tip"}
		}
		rec = ResultRecord{OperationID: op, Kind: cur.op.Meta.Kind, Status: "failed", Error: opErr,
			FromTipID: cur.op.Meta.SourceTipID, TipID: cur.tip, StartedAt: cur.op.Meta.StartedAt, EndedAt: l.now()}
		writes, ls, err := l.finishWrites(cur, rec)
		if err != nil {
			return plan{}, err
		}
		next := cur.clone()
		next.op, next.laneState = nil, ls
		return plan{commit: true, writes: writes, next: next}, nil
	}, func(store.CommitResult) []Event {
		return []Event{runEndEvent(&rec)}
	}))
	if err != nil || !committed {
		return StepResult{Kind: StepProgress}, err
	}
	return StepResult{Kind: StepSettled, Status: "failed"}, nil
}
