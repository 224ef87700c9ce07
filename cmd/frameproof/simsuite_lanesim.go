package main

import (
	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// laneSuite is sim/lanesim, the simulation of one lane over impl/lane and
// the store backends, as a campaign.Suite. It is the suite the commands run.
type laneSuite struct{}

func defaultSuite() campaign.Suite { return laneSuite{} }

func (laneSuite) Scenarios() []campaign.Scenario { return lanesim.Scenarios() }
func (laneSuite) RaceRows() []campaign.RaceRow   { return lanesim.RaceRows() }
func (laneSuite) BugNames() []string             { return lanesim.BugNames() }
func (laneSuite) Backends() []string             { return lanesim.Backends() }
func (laneSuite) LinzModel() porcupine.Model     { return lanesim.OpModel() }
func (laneSuite) BugsCompiled() bool             { return lanesim.BugsCompiled() }

// RunsUseNoDir: lanesim's backends simulate in memory or on faults.FS, so
// its runs need no fresh directory (campaign.NoDirSuite).
func (laneSuite) RunsUseNoDir() bool { return true }

// ReachItems is lanesim's reach registry (campaign.ReachSuite).
func (laneSuite) ReachItems() []campaign.ReachItem { return lanesim.ReachItems() }
