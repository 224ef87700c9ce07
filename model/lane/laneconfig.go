package lane

import (
	"fmt"
	"slices"
)

// LaneConfig is pi.lane.config, the lane's durable configuration
// (session/types.ts LaneConfiguration): the model, the thinking level and
// the active tool names. pi's run boundary reads it (boundary.ts
// assistantReadyAtBoundary: state.configuration); the stream options and
// retry policy come from the process's harness options instead.
type LaneConfig struct {
	Model           ModelRef
	ThinkingLevel   string
	ActiveToolNames []string
}

// json is the stored object, in the order pi's literal writes it
// (runtime/harness.ts Harness.lane: {model: {provider, modelId},
// thinkingLevel, activeToolNames}); appendConfigJSON writes it.
func (c LaneConfig) json() string { return string(appendConfigJSON(nil, c)) }

func (c LaneConfig) equal(d LaneConfig) bool {
	return c.Model == d.Model && c.ThinkingLevel == d.ThinkingLevel && slices.Equal(c.ActiveToolNames, d.ActiveToolNames)
}

// runConfig is the configuration a run names.
func runConfig(r Run) LaneConfig {
	return LaneConfig{Model: r.Model, ThinkingLevel: r.ThinkingLevel, ActiveToolNames: r.ActiveToolNames}
}

// Acquire: a command that needs the lane brings configuration c; each
// call is one transaction. A lane never acquired is created as pi's
// Harness.lane creates one (runtime/harness.ts: one TX [pi.branch.tip =
// null when no tip was ever stored, pi.lane.config, pi.lane.state with no
// operation and an empty inbox], then lane_created). An acquired lane whose
// configuration differs takes one property of c per transaction, as pi's
// setters do (runtime/lane.ts setModel, setThinkingLevel, setActiveTools
// through setConfiguration: pi.lane.config alone, then config_update), in
// that order. It reports whether a transaction is due (false: the lane
// already has c).
func (m *Model) Acquire(c LaneConfig) bool {
	defer m.fillStateValues()
	c.ActiveToolNames = slices.Clone(c.ActiveToolNames)
	if m.config != nil && m.config.equal(c) {
		m.expectTX()
		return false
	}
	if m.config == nil {
		m.createLane(c)
		return true
	}
	next, property := m.config.step(c)
	m.expectTX(setValue(nsLaneConfig, m.cfg.Lane, next.json()))
	m.setConfig(next)
	m.emit("config_update:"+property, false)
	return true
}

func (m *Model) createLane(c LaneConfig) {
	config := setValue(nsLaneConfig, m.cfg.Lane, c.json())
	if m.tipStored {
		m.expectTX(config, setValue(nsLaneState, m.cfg.Lane, ""))
	} else {
		m.expectTX(setValue(nsBranchTip, m.cfg.Lane, "null"), config, setValue(nsLaneState, m.cfg.Lane, ""))
		m.tipStored = true
	}
	m.setConfig(c)
	m.emit("lane_created", false)
}

func (m *Model) setConfig(c LaneConfig) {
	m.config = &c
	m.st.Config = c.json()
}

// step is the configuration after the first of pi's setters that moves c
// towards want (model, then thinking level, then active tools) and the
// property its config_update names.
func (c LaneConfig) step(want LaneConfig) (LaneConfig, string) {
	switch {
	case c.Model != want.Model:
		c.Model = want.Model
		return c, "model"
	case c.ThinkingLevel != want.ThinkingLevel:
		c.ThinkingLevel = want.ThinkingLevel
		return c, "thinkingLevel"
	}
	c.ActiveToolNames = slices.Clone(want.ActiveToolNames)
	return c, "activeTools"
}

// acquired is the check of a command that needs the lane with the run's
// configuration (acceptRun runs on an acquired lane).
func (m *Model) acquired(r Run) error {
	switch {
	case m.config == nil:
		return fmt.Errorf("model/lane: the lane has no pi.lane.config (pi's Harness.lane creates it before a run)")
	case !m.config.equal(runConfig(r)):
		return fmt.Errorf("model/lane: the run's configuration %s is not the lane's %s (pi's setConfiguration writes it first)",
			runConfig(r).json(), m.st.Config)
	}
	return nil
}
