package main

import (
	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// laneSuite adapts sim/lanesim, the simulation of one lane over impl/lane
// and the store backends, to simSuite. It is the suite the commands run.
type laneSuite struct{}

func defaultSuite() simSuite { return laneSuite{} }

func (laneSuite) Scenarios() []simScenario {
	var out []simScenario
	for _, sc := range lanesim.Scenarios() {
		run := sc.Run
		out = append(out, simScenario{Name: sc.Name, Description: sc.Description, Rows: sc.Rows,
			Run: func(src choice.Source, o simOptions) simOutcome {
				r := run(src, lanesim.Options{Backend: o.Backend, Bugs: o.Bugs, TempDir: o.TempDir, KeepTrace: o.KeepTrace, MaxSteps: o.MaxSteps})
				return simOutcome{Failed: r.Failed, Kind: r.Kind, Message: r.Message, Steps: r.Steps, TraceHash: r.TraceHash,
					Trace: r.Trace, Races: r.Races, RaceOrders: r.RaceOrders, Checks: r.Checks, Linz: r.Linz, Faults: r.Faults, CrashImages: r.CrashImages}
			}})
	}
	return out
}

func (laneSuite) RaceRows() []simRaceRow {
	var out []simRaceRow
	for _, r := range lanesim.RaceRows() {
		out = append(out, simRaceRow{ID: r.ID, Name: r.Name, Orders: r.Orders})
	}
	return out
}

func (laneSuite) BugNames() []string         { return lanesim.BugNames() }
func (laneSuite) BugsCompiled() bool         { return lanesim.BugsCompiled() }
func (laneSuite) Backends() []string         { return lanesim.Backends() }
func (laneSuite) LinzModel() porcupine.Model { return lanesim.OpModel() }
