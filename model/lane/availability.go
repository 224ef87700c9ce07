package lane

// pi's configuration failures (runtime/drive/generation.ts
// configurationError, deferred.ts configurationError).
const (
	CodeModelUnavailable = "model_unavailable"
	CodeToolsUnavailable = "configured_tools_unavailable"
	MsgModelUnavailable  = "The configured model is unavailable in this process"
	MsgToolsUnavailable  = "One or more configured tools are unavailable in this process"
)

// unavailability is a configuration failure a generation or poll step
// commits instead of its intent: the error's code, message and details
// (canonical JSON).
type unavailability struct{ code, message, details string }

// generationUnavailable is prepareGeneration's check before a generation's
// intent: the run's model unknown to the registry (Config.ContextWindows,
// pi's options.models.getModel) is model_unavailable with {provider,
// modelId}; then the active tool names not among Config.Tools, in
// activeToolNames order, are configured_tools_unavailable with {tools}.
// No registry (nil) and no tool list (nil) are not checked.
func (m *Model) generationUnavailable(op string) *unavailability {
	info := m.ops[op]
	if info == nil {
		return nil
	}
	if u := m.modelUnavailable(info.run.Model); u != nil {
		return u
	}
	if m.cfg.Tools == nil {
		return nil
	}
	var missing []string
	for _, name := range info.run.ActiveToolNames {
		configured := false
		for _, t := range m.cfg.Tools {
			configured = configured || t.Name == name
		}
		if !configured {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	d := []byte(`{"tools":[`)
	for i, n := range missing {
		if i > 0 {
			d = append(d, ',')
		}
		d = appendStr(d, n)
	}
	return &unavailability{CodeToolsUnavailable, MsgToolsUnavailable, string(append(d, "]}"...))}
}

// modelUnavailable is the registry question of prepareGeneration and of a
// poll with a permit (deferred.ts prepareDeferredPoll).
func (m *Model) modelUnavailable(mdl ModelRef) *unavailability {
	if m.cfg.ContextWindows == nil {
		return nil
	}
	if _, ok := m.cfg.ContextWindows[mdl]; ok {
		return nil
	}
	d := appendStr([]byte(`{"provider":`), mdl.Provider)
	d = appendStr(append(d, `,"modelId":`...), mdl.ModelID)
	return &unavailability{CodeModelUnavailable, MsgModelUnavailable, string(append(d, '}'))}
}

// configurationFailure is response.ts publishConfigurationFailure at its
// turn (a cancel or a move since dispatch skipped it: StepTurn): the
// terminal transaction with the failed result carrying u, then run_end.
func (m *Model) configurationFailure(id string, o Op, u *unavailability) Outcome {
	m.expectTX(m.terminalWrites(id, o)...)
	m.terminate(id, "failed", u.code, u.message)
	res := m.st.Results[id]
	res.ErrorDetails = u.details
	m.st.Results[id] = res
	m.emitRunEnd(id)
	return Outcome{Kind: "settled", Status: "failed"}
}
