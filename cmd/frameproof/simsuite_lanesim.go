package main

import (
	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// laneSuite adapts sim/lanesim, the simulation of one lane over impl/lane
// and the store backends, to campaign.Suite. It is the suite the commands run.
type laneSuite struct{}

func defaultSuite() campaign.Suite { return laneSuite{} }

func (laneSuite) Scenarios() []campaign.Scenario {
	var out []campaign.Scenario
	for _, sc := range lanesim.Scenarios() {
		run := sc.Run
		out = append(out, campaign.Scenario{Name: sc.Name, Description: sc.Description, Rows: sc.Rows,
			Run: func(src choice.Source, o campaign.RunOptions) campaign.Outcome {
				r := run(src, lanesim.Options{Backend: o.Backend, Bugs: o.Bugs, TempDir: o.TempDir, KeepTrace: o.KeepTrace, MaxSteps: o.MaxSteps})
				return campaign.Outcome{Failed: r.Failed, Kind: r.Kind, Message: r.Message, Steps: r.Steps, TraceHash: r.TraceHash,
					Trace: r.Trace, Races: r.Races, RaceOrders: r.RaceOrders, Linz: r.Linz, Faults: r.Faults, Checks: r.Checks,
					TXCompared: r.TXCompared, Structural: r.Structural, CrashImages: r.CrashImages, Settings: r.Settings}
			}})
	}
	return out
}

func (laneSuite) RaceRows() []campaign.RaceRow {
	var out []campaign.RaceRow
	for _, r := range lanesim.RaceRows() {
		out = append(out, campaign.RaceRow{ID: r.ID, Name: r.Name, Orders: r.Orders})
	}
	return out
}

func (laneSuite) BugNames() []string         { return lanesim.BugNames() }
func (laneSuite) Backends() []string         { return lanesim.Backends() }
func (laneSuite) LinzModel() porcupine.Model { return lanesim.OpModel() }
