package crash

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/choice"
)

// SweepConfig describes a crash-state sweep of the JSONL store.
type SweepConfig struct {
	Seed      uint64 // workload i uses generator seed Seed+i
	Workloads int
	Commits   int // commits per workload (default 6)
	// ImagesPerPoint bounds the crash decisions enumerated at one crash
	// point in each crash mode (default 1000); choice.Enumerate walks them
	// depth first.
	ImagesPerPoint int
	Options        jsonl.Options
	Faults         faults.Options // crash behaviours (zero: faults.AllFaults)
}

// SweepStats is what a sweep explored.
type SweepStats struct {
	Workloads, CrashPoints int
	Crashes                int // crash decisions tried
	Distinct               int // distinct post-crash disk images (by faults.FS.Image)
	Checked                int // recoveries checked (distinct image x oracle state)
	Subset                 int // distinct images made by subset-mode crashes
	Failures               []string
}

// SweepJSONL crashes JSONL workloads at every file-system operation and, at
// each, under every crash decision choice.Enumerate reaches (prefix and
// subset modes, tearing, junk tails, lost directory operations). Each
// distinct disk image is reopened and must equal a commit prefix holding
// every acknowledged commit. It stops collecting failures after ten.
func SweepJSONL(cfg SweepConfig) SweepStats {
	if cfg.Commits <= 0 {
		cfg.Commits = 6
	}
	if cfg.ImagesPerPoint <= 0 {
		cfg.ImagesPerPoint = 1000
	}
	if cfg.Faults == (faults.Options{}) {
		cfg.Faults = faults.AllFaults
	}
	var st SweepStats
	seen := map[uint64]bool{}
	for i := range cfg.Workloads {
		seed := cfg.Seed + uint64(i)
		wl := NewGen(seed).Workload(cfg.Commits)
		st.Workloads++
		whole, _ := runToCrash(cfg, wl, -1)
		checked := map[[3]uint64]bool{}
		for p := 0; p <= whole.Ops(); p++ {
			st.CrashPoints++
			fsys, oracle := runToCrash(cfg, wl, p)
			for _, mode := range modes(cfg.Faults) {
				choice.Enumerate(cfg.ImagesPerPoint, func(c choice.Source) {
					st.Crashes++
					g := fsys.Clone(c)
					rep := g.CrashInMode(c, mode)
					if !seen[rep.Image] {
						seen[rep.Image] = true
						st.Distinct++
						if rep.Mode == faults.ModeSubset {
							st.Subset++
						}
					}
					key := [3]uint64{rep.Image, uint64(oracle.acked), uint64(oracle.open)}
					if checked[key] {
						return
					}
					checked[key] = true
					st.Checked++
					if err := checkRecovery(g, oracle, cfg.Options); err != nil && len(st.Failures) < 10 {
						st.Failures = append(st.Failures, fmt.Sprintf("workload seed %d, crash point %d, crash %s: %v", seed, p, rep, err))
					}
				})
			}
		}
	}
	return st
}

// modes lists the crash modes opts allows; each gets its own enumeration
// (depth first, one enumeration would spend its budget on the first mode).
func modes(opts faults.Options) []string {
	if opts.Subset {
		return []string{faults.ModePrefix, faults.ModeSubset}
	}
	return []string{faults.ModePrefix}
}

// runToCrash runs workload wl on a fresh faulty FS that dies after point
// operations (point < 0: never) and returns the FS, not yet crashed, and
// the oracle of what the store acknowledged.
func runToCrash(cfg SweepConfig, wl [][]mstore.Write, point int) (*faults.FS, *Oracle) {
	fsys := faults.NewFSWith(choice.Fixed(0), cfg.Faults)
	oracle := NewOracle()
	_ = fsys.MkdirAll("/data")
	if point >= 0 {
		fsys.CrashAfter(point)
	}
	st, err := jsonl.Create(sweepEnv(fsys), dataPath, jsonl.Header{ID: "s", CreatedAt: 1, Cwd: "/"}, cfg.Options)
	if err != nil {
		return fsys, oracle
	}
	for _, ws := range wl {
		res, err := st.Commit(ToStore(ws))
		switch {
		case err == nil:
			_ = oracle.Acked(ws, res) // a disagreement shows up at recovery
		case IsRejection(err):
		default:
			oracle.Indefinite(ws)
		}
	}
	_ = st.Close()
	return fsys, oracle
}

// dataPath is the JSONL file of the crash tests and sweeps.
const dataPath = "/data/s.jsonl"

func sweepEnv(f env.FS) env.Env {
	return env.Env{Clock: envtest.NewTickClock(envtest.Epoch), FS: f, Executor: env.Goroutines{}}
}

// missingHeader is the JSONL store's "missing header" refusal: a file
// crashed while it was being created, before any header was acknowledged.
func missingHeader(err error) bool {
	var se *jsonl.StorageError
	return errors.As(err, &se) && se.What == "missing header"
}

// checkRecovery reopens the crashed store and checks it against oracle.
func checkRecovery(fsys *faults.FS, oracle *Oracle, opts jsonl.Options) error {
	if _, err := fsys.ReadFile(dataPath); errors.Is(err, fs.ErrNotExist) {
		if oracle.Acknowledged() > 0 {
			return fmt.Errorf("file vanished after %d acknowledged commits", oracle.Acknowledged())
		}
		return nil
	}
	st, err := jsonl.Open(sweepEnv(fsys), dataPath, opts)
	if err != nil {
		if missingHeader(err) && oracle.Acknowledged() == 0 {
			return nil // crashed while creating: no header was ever acknowledged
		}
		return fmt.Errorf("reopen failed: %w", err)
	}
	defer st.Close()
	got, err := ReadSnapshot(st)
	if err != nil {
		return err
	}
	_, err = oracle.Check(got)
	return err
}
