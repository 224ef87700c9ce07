package lane

import (
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Where the run's configuration lives. pi keeps the lane's configuration
// (model, thinking level, active tools) durable in pi.lane.config and reads
// it at every run boundary (boundary.ts assistantReadyAtBoundary:
// state.configuration, restored from pi.lane.config); the stream options
// and retry policy come from the harness options of the process
// (lane.readConfig()), which are not durable.
//
// pi writes pi.lane.config outside the run lifecycle: when a lane is
// acquired for the first time (runtime/harness.ts Harness.lane: one
// transaction [pi.branch.tip = null when no tip is stored, pi.lane.config,
// pi.lane.state {currentOperationId: null, lastOperationId: null,
// inbox: []}]), and when the configuration changes (runtime/lane.ts
// setConfiguration behind setModel, setThinkingLevel and setActiveTools;
// tool-placement.ts commitPlacement when tool results add tools). Open is
// frameproof's restore and writes nothing, so the lane acquires itself
// where pi's lane must already exist: before the first command that needs
// it (StartRun, Enqueue), as that transaction, seeded like pi's
// createAgentHarness options with the run's configuration or
// Config.Generation's. A run started with another configuration than the
// stored one first commits it, as setConfiguration would (pi changes it
// only through its setters, one transaction each, before the run is
// accepted). pi emits lane_created (Harness.lane) and config_update with
// the lane's name (Lane.setConfiguration, through the lane's emitBatch);
// so does this lane, after each transaction (acquire).

// laneConfigMissing is pi's restore refusal of a lane without one of its
// three values (restore.ts classifyLaneStorage).
func laneConfigMissing(name, what string) error {
	return fmt.Errorf("Lane %s is missing %s", jsonString(name), what)
}

// classifyLane is restore.ts classifyLaneStorage: no value (absent) or a
// branch tip alone (branch) is a lane not yet acquired; a lane is all
// three; anything else is refused with pi's message.
func classifyLane(name string, tip, config, state *store.StoredValue) (acquired bool, err error) {
	switch {
	case tip == nil && config == nil && state == nil:
		return false, nil
	case tip != nil && config == nil && state == nil:
		return false, nil
	case tip == nil:
		return false, laneConfigMissing(name, "branch.tip")
	case config == nil:
		return false, laneConfigMissing(name, "lane.config")
	case state == nil:
		return false, laneConfigMissing(name, "lane.state")
	}
	return true, nil
}

// decodeLaneConfig reads a stored pi.lane.config value, the shape pi
// writes (session/types.ts LaneConfiguration: {model: {provider, modelId},
// thinkingLevel, activeToolNames}); an error names the member that is not.
func decodeLaneConfig(raw []byte) (*Configuration, error) {
	src := string(raw)
	// the bytes Configuration.value writes, read as DecodeState's fast path
	// reads a state's configuration (TestDecodeLaneConfigFastPath)
	d := &stateDec{s: src}
	if c := d.config(); d.end() {
		if len(c.ActiveToolNames) == 0 {
			c.ActiveToolNames = nil // as the tree's appends leave it
		}
		return &c, nil
	}
	return decodeLaneConfigTree(src)
}

// decodeLaneConfigTree is decodeLaneConfig from the parsed tree.
func decodeLaneConfigTree(src string) (*Configuration, error) {
	v, err := pi.ParseJSON(src)
	if err != nil {
		return nil, err
	}
	if v.Kind() != pi.Object {
		return nil, fmt.Errorf("is %s, not an object", v.Kind())
	}
	model := v.Prop("model")
	if model.Kind() != pi.Object {
		return nil, fmt.Errorf("model is %s, not an object", model.Kind())
	}
	var c Configuration
	for _, f := range []struct {
		path string
		v    pi.JSONValue
		into *string
	}{
		{"model.provider", model.Prop("provider"), &c.Model.Provider},
		{"model.modelId", model.Prop("modelId"), &c.Model.ModelID},
		{"thinkingLevel", v.Prop("thinkingLevel"), &c.ThinkingLevel},
	} {
		if f.v.Kind() != pi.String {
			return nil, fmt.Errorf("%s is %s, not a string", f.path, f.v.Kind())
		}
		*f.into = f.v.Str()
	}
	names := v.Prop("activeToolNames")
	if names.Kind() != pi.Array {
		return nil, fmt.Errorf("activeToolNames is %s, not an array", names.Kind())
	}
	for i, n := range names.Array() {
		if n.Kind() != pi.String {
			return nil, fmt.Errorf("activeToolNames[%d] is %s, not a string", i, n.Kind())
		}
		c.ActiveToolNames = append(c.ActiveToolNames, n.Str())
	}
	return &c, nil
}

func sameConfiguration(a, b Configuration) bool {
	return a.Model == b.Model && a.ThinkingLevel == b.ThinkingLevel && slices.Equal(a.ActiveToolNames, b.ActiveToolNames)
}

// seedConfiguration is the configuration a command that acquires the lane
// brings: the run's when it names a model, else Config.Generation's. No
// thinking level is pi's default, "off" (runtime/harness.ts
// createAgentHarness: options.thinkingLevel ?? "off"): pi never stores an
// empty one.
func (l *Lane) seedConfiguration(run Configuration) *Configuration {
	var c Configuration
	switch {
	case run.Model != (ModelRef{}):
		c = run
	case l.cfg.Generation != nil && l.cfg.Generation.Configuration.Model != (ModelRef{}):
		c = l.cfg.Generation.Configuration
	default:
		return nil
	}
	if c.ThinkingLevel == "" {
		c.ThinkingLevel = "off"
	}
	return &c
}

// Acquire is pi's Harness.lane (runtime/harness.ts lane): a caller that
// holds the lane before any command — a host that opens the lane when its
// process starts, as pi's own harness does — creates it here, with
// Config.Generation's configuration (createAgentHarness's options), in
// the same transaction and with the same lane_created StartRun and
// Enqueue would otherwise commit first. An acquired lane commits nothing.
func (l *Lane) Acquire() error {
	if err := l.usable(); err != nil {
		return err
	}
	return l.acquire(l.seedConfiguration(Configuration{}), false)
}

// acquire makes sure the lane exists with configuration seed before a
// command that needs it: Harness.lane's creation transaction when no
// pi.lane.config is stored, then lane_created; when seed differs from the
// stored one (an explicit run configuration only), one setConfiguration
// transaction per differing property, each followed by its config_update,
// in the order a caller would call pi's setters (configStep); else
// nothing. A lane with a current operation keeps its configuration: the
// run that brings another is refused as busy (acceptRun's LaneBusy), and a
// refused run changes nothing.
func (l *Lane) acquire(seed *Configuration, explicit bool) error {
	for {
		committed := false
		_, _, err := l.command(CmdLaneConfig, func(cur view) (plan, error) {
			if cur.config != nil && (!explicit || cur.op != nil || sameConfiguration(*cur.config, *seed)) {
				return plan{}, nil
			}
			if seed == nil {
				return plan{}, &rejectError{fmt.Errorf("lane: %q has no pi.lane.config and no configuration to create it with "+
					"(set RunOptions.Configuration or Config.Generation)", l.cfg.Name)}
			}
			committed = true
			if cur.config == nil {
				return l.createLane(cur, *seed), nil
			}
			c, update := configStep(*cur.config, *seed)
			next := cur.clone()
			next.config = &c
			writes := []store.Write{store.SetValueRaw(LaneConfigAddr(l.cfg.Name), c.value().AppendJSON(nil))}
			return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event { return []Event{update} }}, nil
		})
		if err != nil || !committed {
			return err
		}
	}
}

// createLane is Harness.lane's creation transaction and its lane_created
// event, whose at is the tip the lane starts from (a stored branch tip,
// else null).
func (l *Lane) createLane(cur view, seed Configuration) plan {
	c := seed
	c.ActiveToolNames = slices.Clone(c.ActiveToolNames)
	next := cur.clone()
	next.config = &c
	writes := []store.Write{store.SetValueRaw(LaneConfigAddr(l.cfg.Name), c.value().AppendJSON(nil))}
	if !cur.tipStored {
		writes = append([]store.Write{store.SetValueRaw(BranchTipAddr(l.cfg.Name), []byte("null"))}, writes...)
		next.tipStored = true
	}
	writes = append(writes, store.SetValueRaw(LaneStateAddr(l.cfg.Name), cur.laneState.raw()))
	return plan{commit: true, writes: writes, next: next, events: func(store.CommitResult) []Event { return []Event{{Type: EvLaneCreated, At: cur.tip}} }}
}

// configStep is the first setter pi would need to turn cur into want, in
// the order setModel, setThinkingLevel, setActiveTools: the configuration
// that setter commits (the whole pi.lane.config, one property changed) and
// its config_update event (runtime/lane.ts setConfiguration).
func configStep(cur, want Configuration) (Configuration, Event) {
	next := cur
	ev := Event{Type: EvConfigUpdate}
	switch {
	case cur.Model != want.Model:
		next.Model = want.Model
		ev.Property, ev.Previous, ev.Value = "model", cur.Model.value(), want.Model.value()
	case cur.ThinkingLevel != want.ThinkingLevel:
		next.ThinkingLevel = want.ThinkingLevel
		ev.Property, ev.Previous, ev.Value = "thinkingLevel", jval(cur.ThinkingLevel), jval(want.ThinkingLevel)
	default:
		next.ActiveToolNames = slices.Clone(want.ActiveToolNames)
		ev.Property = "activeTools"
		ev.Previous, ev.Value = toolNamesValue(cur.ActiveToolNames), toolNamesValue(want.ActiveToolNames)
	}
	return next, ev
}

// toolNamesValue is activeToolNames as pi stores it: an array, never null.
func toolNamesValue(names []string) pi.JSONValue {
	if names == nil {
		names = []string{}
	}
	return jval(names)
}
