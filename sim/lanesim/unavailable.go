package lanesim

import (
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// Runs whose model or active tools the lane process lacks (impl/lane
// availability.go, pi's runtime/drive/generation.ts prepareGeneration): a
// swarm draw makes one run's configuration name a model the registry does
// not know or an active tool the lane is not configured with, so the run
// fails before its intent with publishConfigurationFailure's transaction
// and run_end, which the lockstep compares with the model's.
const (
	unavailableModel = "model"
	unavailableTool  = "tool"
	// simAbsentModel is a model no registry of the simulator knows
	simAbsentModel = "absent-model"
	// rowUnavailable records the configuration failures a run committed,
	// by pi's error code (a coverage row outside the race table)
	rowUnavailable = "configuration-failure"
)

// withUnavailable is c for the run started k-th (from 0): the profile's
// unavailable run names the absent model or adds the unconfigured tool.
func (p profile) withUnavailable(k int, c lane.Configuration) lane.Configuration {
	if p.unavailable == "" || k != p.unavailableRun {
		return c
	}
	switch p.unavailable {
	case unavailableModel:
		c.Model.ModelID = simAbsentModel
	case unavailableTool:
		c.ActiveToolNames = append(slices.Clone(c.ActiveToolNames), toolGhost)
	}
	return c
}

// unavailableCode is the error code of the failed result a configuration
// failure commits.
func unavailableCode(ws []store.Write) string {
	for _, w := range ws {
		if w.Kind != store.WriteValue || w.Namespace != lane.NSResult || w.Op != store.OpSet {
			continue
		}
		v, err := pi.ParseJSON(string(w.Value))
		if err == nil {
			if c := v.Prop("error").Prop("code"); c.Kind() == pi.String {
				return c.Str()
			}
		}
	}
	return "no-error"
}
