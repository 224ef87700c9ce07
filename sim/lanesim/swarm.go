package lanesim

import (
	"fmt"

	"github.com/frameproof/frameproof/sim/choice"
)

// SwarmScenario is the name of the swarm scenario.
const SwarmScenario = "swarm"

const swarmDesc = "swarm testing: every seed draws its own actor mix, fault rates and provider settings (printed with a failure)"

// swarmProfile draws a profile from src before the run draws anything else
// (swarm testing, as TigerBeetle's VOPR does it): each actor and fault is
// switched on or off and sized per seed, so a campaign tries combinations
// no fixed profile lists. The same seed draws the same settings, and the
// shrinker shrinks them with the rest of the tape (0 is the smallest
// setting everywhere).
func swarmProfile(src choice.Source) profile {
	p := base(SwarmScenario, swarmDesc)
	p.ops = choice.Range(src, "swarm: ops", 1, 3)
	p.maxAttempts = choice.Range(src, "swarm: max attempts", 1, 4)
	p.gen.maxBlocks = choice.Range(src, "swarm: max blocks", 1, 5)
	p.gen.errorWeight = choice.Range(src, "swarm: error weight", 0, 3)
	p.crashes = choice.Range(src, "swarm: crashes", 0, 3)
	p.finalizer = choice.Bool(src, "swarm: finalizer")
	p.canceller = choice.Bool(src, "swarm: canceller")
	p.snapshots = choice.Range(src, "swarm: snapshots", 0, 4)
	p.storageFaults = choice.Pick(src, "swarm: storage fault 1-in", []int{0, 20, 8, 4})
	p.closer = choice.Bool(src, "swarm: closer")
	p.deferred = choice.Bool(src, "swarm: deferred")
	p.pollCrash = p.deferred && choice.Bool(src, "swarm: poll crash")
	p.forkMigrate = choice.Bool(src, "swarm: fork migration")
	p.commitLatency = !choice.Bool(src, "swarm: no commit latency")
	p.compaction = choice.Bool(src, "swarm: compaction")
	p.structural = choice.Range(src, "swarm: structural", 0, 3)
	p.structuralCrash = p.structural > 0 && choice.Bool(src, "swarm: structural crash")
	// frameproof's frame budget (0, pi's, has no cap): small budgets, so a
	// recovery or snapshot reads past them
	p.frameBudget = choice.Pick(src, "swarm: frame budget", []int{0, 1, 2, 3, 5, 8})
	p.storeInputs = drawStoreInputs(src)
	p.badHandle = p.deferred && choice.Bool(src, "swarm: bad deferred handle")
	p.lostFaults = p.finalizer && choice.Bool(src, "swarm: pi's lost-operation fault")
	if choice.Bool(src, "swarm: run configurations") {
		for i := 0; i < p.ops; i++ {
			p.runConfigs = append(p.runConfigs, choice.Range(src, "swarm: run configuration", 0, len(simConfigurations)-1))
		}
	}
	p.sequentialTools = choice.Chance(src, "swarm: sequential tool batches", 1, 4)
	// drawn last, so that the draws above keep their seeds' values
	p.thresholdOver = choice.Pick(src, "swarm: threshold compaction over", []int{0, 0, 1, 3, 14, 40})
	// only seeds with a model registry and no deferred responses draw an
	// unavailable configuration, so that every other seed keeps its draws
	// (and its schedule)
	if p.thresholdOver > 0 && !p.deferred {
		p.unavailable = choice.Pick(src, "swarm: unavailable configuration", []string{"", "", "", "model", "tool"})
	}
	if p.unavailable != "" {
		p.unavailableRun = choice.Range(src, "swarm: unavailable run", 0, p.ops-1)
	}
	drawReach(src, &p)
	return p
}

// settings prints the knobs a swarm seed drew.
func (p profile) settings() string {
	return fmt.Sprintf("ops=%d attempts=%d blocks=%d errors=%d crashes=%d finalizer=%t canceller=%t snapshots=%d closer=%t "+
		"storage-faults=1/%d deferred=%t poll-crash=%t fork=%t latency=%t compaction=%t structural=%d structural-crash=%t "+
		"frame-budget=%d jsonl-strict=%t foreign-rows=%t refused-probe=%t bad-handle=%t lost-faults=%t run-configs=%v sequential-tools=%t threshold-over=%d unavailable=%q@%d "+
		"mid-block-redaction=%t textless-results=%t crash-at-staged=%t frame-page=%d",
		p.ops, p.maxAttempts, p.gen.maxBlocks, p.gen.errorWeight, p.crashes, p.finalizer, p.canceller, p.snapshots, p.closer,
		p.storageFaults, p.deferred, p.pollCrash, p.forkMigrate, p.commitLatency, p.compaction, p.structural, p.structuralCrash,
		p.frameBudget, p.storeInputs.strict, p.storeInputs.foreign, p.storeInputs.probe, p.badHandle, p.lostFaults, p.runConfigs, p.sequentialTools, p.thresholdOver, p.unavailable, p.unavailableRun,
		p.gen.midBlockRedaction, p.gen.textlessResults, p.reach.crashAtStaged, p.reach.framePage)
}

// runSwarm draws the seed's settings, runs them and names them beside a
// failure.
func runSwarm(src choice.Source, opts Options) Outcome {
	p := swarmProfile(src)
	out := run(p, src, opts)
	out.Settings = p.settings()
	if out.Failed {
		out.Message = "swarm settings " + out.Settings + ": " + out.Message
	}
	return out
}
