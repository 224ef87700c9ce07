package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/frameproof/frameproof/props/mutate"
)

// defaultMutatePkgs are the implementation packages whose power is measured.
const defaultMutatePkgs = "impl/frames,impl/store,impl/store/memory,impl/store/jsonl,impl/store/sqlite,impl/lane,impl/replay"

// defaultKiller is the simulator plus props/ in short mode; impl's own unit
// tests are not run. TestMutationScore re-runs the planted bug switches and
// TestDebugSeed is a manual reproduction hook: neither is a check of an
// unplanted mutant.
const defaultKiller = "go test -short -timeout 4m -skip ^(TestMutationScore|TestDebugSeed)$ ./props/... ./sim/..."

func init() {
	register("mutate", "generate mutants of impl/ and report how many the simulator and props/ kill", runMutate)
}

func runMutate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	seed := fs.Uint64("seed", 1, "sampling seed")
	budget := fs.Int("budget", 6, "mutants sampled per package (0: all)")
	pkgs := fs.String("pkgs", defaultMutatePkgs, "comma-separated package directories")
	killer := fs.String("killer", defaultKiller, "the killer command (a go test command; -overlay is added)")
	timeout := fs.Duration("timeout", 5*time.Minute, "per-mutant killer timeout (a timeout counts as killed)")
	root := fs.String("root", ".", "the module root")
	minScore := fs.Float64("min-score", 0, "exit 1 when a package scores below this percentage")
	verbose := fs.Bool("v", false, "print each mutant's outcome as it finishes")
	only := fs.String("mutants", "", "comma-separated mutant ids (file:line:OP@offset) to run instead of the sample")
	usageLine := "usage: frameproof mutate [--seed N] [--budget N] [--pkgs a,b] [--killer CMD] [--timeout D] [--min-score P] [--mutants IDS] [-v]"
	if code := parseFlags(fs, args, usageLine, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	// Every argument is checked before the killer's baseline run, which
	// takes minutes: a typo is a usage error at once, not a failure later.
	switch {
	case *budget < 0:
		return usageError(stderr, "mutate", "--budget: must not be negative, got %d", *budget)
	case *timeout <= 0:
		return usageError(stderr, "mutate", "--timeout %s: must be positive", *timeout)
	case !(*minScore >= 0 && *minScore <= 100):
		return usageError(stderr, "mutate", "--min-score %v: want a percentage from 0 to 100", *minScore)
	}
	killerArgv, err := commandWords("--killer", *killer)
	if err != nil {
		return usageError(stderr, "mutate", "%v", err)
	}
	cfg := mutate.Config{Root: *root, Seed: *seed, Budget: *budget, Timeout: *timeout, Killer: killerArgv}
	for _, p := range strings.Split(*pkgs, ",") {
		cfg.Pkgs = append(cfg.Pkgs, strings.TrimSpace(p))
	}
	if *only != "" {
		for _, id := range strings.Split(*only, ",") {
			cfg.Only = append(cfg.Only, strings.TrimSpace(id))
		}
	}
	if err := mutate.Check(cfg); err != nil {
		return usageError(stderr, "mutate", "%s", trimPrefix(err, "mutate: bad configuration"))
	}
	if *verbose {
		cfg.Progress = stderr
	}
	fmt.Fprintf(stderr, "frameproof mutate --seed %d --budget %d --pkgs %s\nkiller: %s\n", *seed, *budget, *pkgs, *killer)
	if *only != "" {
		fmt.Fprintf(stderr, "only: %s\n", *only)
	}
	ctx, stop := interruptContext()
	defer stop()
	reports, err := mutate.Run(ctx, cfg)
	switch {
	case err != nil && ctx.Err() != nil:
		// Ctrl-C or SIGTERM: no verdict, not an environment failure.
		fmt.Fprintln(stderr, "frameproof mutate: interrupted before the score was known")
		return exitCode(classInterrupted)
	case errors.Is(err, mutate.ErrConfig):
		return usageError(stderr, "mutate", "%s", trimPrefix(err, "mutate: bad configuration"))
	case errors.Is(err, mutate.ErrBaseline):
		// The killer cannot build or pass the unmutated tree: no mutant can
		// be judged, and nothing about the mutants was found.
		return envError(stderr, "mutate", "%s", trimPrefix(err, "mutate"))
	case err != nil:
		return ioError(stderr, "mutate", "%s", trimPrefix(err, "mutate"))
	}
	if err := mutate.Render(stdout, reports); err != nil {
		return ioError(stderr, "mutate", "writing output: %v", err)
	}
	for _, r := range reports {
		if s := r.Score(); s >= 0 && s < *minScore {
			return exitFail
		}
	}
	return exitPass
}
