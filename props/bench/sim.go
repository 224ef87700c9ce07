package bench

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
	"github.com/frameproof/frameproof/sim/world"
)

func init() {
	Register(Family{
		Name:    "sim",
		Summary: "simulator scenarios/s and steps/s per backend, beside the kernel's steps/s (actors that only yield)",
		Run:     runSim,
		Shape: func(Options) []TableShape {
			return shapesOf(len(simScenarios)*len(lanesim.Backends()), simTable())
		},
	})
}

// simScenarios are a cheap scenario, a crash-heavy one, and the default
// campaign's mix.
var simScenarios = []string{"append-order", "crash-with-queued-writes", "mix"}

// kernelActors is the yield loop's world size: a few actors, as in a lane
// scenario (submitters, the line, the provider, the clock).
const kernelActors = 8

// simTable is the family's table before its rows: one per scenario and
// backend.
func simTable() Table {
	return Table{
		Title:  "Simulator: scenarios and steps per second (one core, consecutive seeds)",
		Header: []string{"scenario", "backend", "scenarios/s (wall)", "scenarios per CPU-s", "steps/scenario", "steps per CPU-s", "kernel steps per CPU-s", "kernel ÷ sim"},
	}
}

// runSim runs each scenario on each backend over consecutive seeds for the
// budget and reports throughput beside the kernel's: how many scheduler
// steps per second the world itself manages when actors do nothing but
// yield. A failing seed is an error, not a figure.
func runSim(ctx context.Context, o Options) ([]Table, error) {
	dir, err := os.MkdirTemp("", "frameproof-bench-sim-")
	if err != nil {
		return nil, fmt.Errorf("sim: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)

	var kernelSteps int64
	ks, err := Measure(o.Budget(), func() error {
		n, err := world.YieldLoad(kernelActors, 2000, false)
		kernelSteps = n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("sim: kernel: %w", err)
	}
	// Rates per CPU second: on a shared machine wall time also counts the
	// time spent waiting for a core; the wall rate is kept beside it.
	kernel := float64(kernelSteps) / (ks.CPUNs / 1e9)

	t := simTable()
	for _, name := range simScenarios {
		sc, ok := lanesim.ScenarioByName(name)
		if !ok {
			return nil, fmt.Errorf("sim: no scenario %q", name)
		}
		for _, be := range lanesim.Backends() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			seed, steps := uint64(0), 0
			s, err := Measure(o.Budget(), func() error {
				seed++
				out := sc.Run(choice.NewSeeded(seed), lanesim.Options{Backend: be, TempDir: dir})
				if out.Failed {
					return fmt.Errorf("seed %d failed: %s: %s", seed, out.Kind, out.Message)
				}
				steps += out.Steps
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("sim %s/%s: %w", name, be, err)
			}
			// seed counts the untimed warm-up run too; steps per scenario
			// is over every run, rates over the timed ones.
			perScenario := float64(steps) / float64(seed)
			wallRate, cpuRate := 1e9/s.WallNs, 1e9/s.CPUNs
			t.Rows = append(t.Rows, []string{name, be, Num(wallRate), Num(cpuRate),
				Num(perScenario), Num(cpuRate * perScenario), Num(kernel), Ratio(kernel, cpuRate*perScenario)})
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Kernel: sim/world.YieldLoad, %d actors that only yield, hash-only trace. A scenario's steps also run the lane, the store, the model and the checkers, so the last column is how many times more CPU a simulated step costs than a bare kernel step. CPU time is the process's user+system time (GC included); wall time on a shared machine also counts waiting for a core.", kernelActors),
		fmt.Sprintf("Budget per row: %s.", o.Budget().Round(time.Millisecond)),
		"Printed by `go run ./cmd/frameproof bench --family sim`.",
	}
	return []Table{t}, nil
}
