package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Status is what happened to one mutant.
type Status string

const (
	Killed    Status = "killed"     // the killer failed
	TimedOut  Status = "timeout"    // the killer ran past the per-mutant timeout (counted as killed)
	Survived  Status = "survived"   // the killer passed
	NotViable Status = "not-viable" // the mutated package does not compile
)

// Config is one mutation run.
type Config struct {
	Root     string   // module root (holds go.mod)
	Pkgs     []string // package directories relative to Root (impl/lane)
	Seed     uint64   // sampling seed
	Budget   int      // mutants sampled per package (0: all)
	Timeout  time.Duration
	Killer   []string // the killer's argv, starting with "go" "test"; -overlay is added after "test"
	Progress io.Writer
	// Only, when set, runs just the mutants with these IDs (Mutant.ID), in
	// place of the seeded sample: re-judging earlier survivors after a fix.
	Only []string
}

// Result is one mutant's outcome.
type Result struct {
	Mutant  Mutant
	Status  Status
	Diff    string
	Elapsed time.Duration
	Output  string // the killer's output tail for survivors' context (trimmed)
}

// PackageReport is one package's tally.
type PackageReport struct {
	Pkg       string
	Generated int
	Results   []Result
}

// Count returns how many results have the status.
func (p PackageReport) Count(s Status) int {
	n := 0
	for _, r := range p.Results {
		if r.Status == s {
			n++
		}
	}
	return n
}

// Score is killed (timeouts included) over viable mutants, in percent; -1
// when no mutant was viable.
func (p PackageReport) Score() float64 {
	k := p.Count(Killed) + p.Count(TimedOut)
	v := k + p.Count(Survived)
	if v == 0 {
		return -1
	}
	return 100 * float64(k) / float64(v)
}

// Sample picks budget mutants deterministically from seed: the same seed,
// package and source give the same mutants.
func Sample(ms []Mutant, pkg string, seed uint64, budget int) []Mutant {
	h := fnv.New64a()
	h.Write([]byte(pkg))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	out := append([]Mutant(nil), ms...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	if budget > 0 && budget < len(out) {
		out = out[:budget]
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Start < out[j].Start
	})
	return out
}

// ErrBaseline means the killer fails on the unmutated tree, so no mutant
// can be judged.
var ErrBaseline = errors.New("mutate: the killer fails on the unmutated code")

// Run checks the killer passes on the unmutated tree (which also warms go
// test's cache, so packages a mutant cannot reach are not re-run), then
// runs every sampled mutant of every package.
func Run(ctx context.Context, cfg Config) ([]PackageReport, error) {
	if err := Check(cfg); err != nil {
		return nil, err
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, fmt.Errorf("mutate: module root: %w", err)
	}
	cfg.Root = root // the overlay maps absolute paths
	tmp, err := os.MkdirTemp("", "frameproof-mutate-")
	if err != nil {
		return nil, fmt.Errorf("mutate: temp dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	if status, out, err := runKiller(ctx, cfg, ""); err != nil {
		return nil, err
	} else if status != Survived {
		return nil, fmt.Errorf("%w (%s):\n%s", ErrBaseline, status, tail(out, 4000))
	}
	var reports []PackageReport
	for _, pkg := range cfg.Pkgs {
		all, err := Generate(cfg.Root, pkg)
		if err != nil {
			return nil, err
		}
		rep := PackageReport{Pkg: pkg, Generated: len(all)}
		for _, m := range pick(all, pkg, cfg) {
			res, err := runMutant(ctx, cfg, tmp, m)
			if err != nil {
				return nil, err
			}
			rep.Results = append(rep.Results, res)
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "%-10s %s (%s)\n", res.Status, m.ID(), res.Elapsed.Round(time.Second))
			}
		}
		reports = append(reports, rep)
	}
	return reports, nil
}

func runMutant(ctx context.Context, cfg Config, tmp string, m Mutant) (Result, error) {
	abs := filepath.Join(cfg.Root, m.File)
	src, err := os.ReadFile(abs)
	if err != nil {
		return Result{}, fmt.Errorf("mutate: reading %s: %w", m.File, err)
	}
	mutated := filepath.Join(tmp, "mutant.go")
	if err := os.WriteFile(mutated, m.Apply(src), 0o644); err != nil {
		return Result{}, fmt.Errorf("mutate: writing mutant: %w", err)
	}
	overlay := filepath.Join(tmp, "overlay.json")
	data, _ := json.Marshal(map[string]map[string]string{"Replace": {abs: mutated}})
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return Result{}, fmt.Errorf("mutate: writing overlay: %w", err)
	}
	start := time.Now()
	res := Result{Mutant: m, Diff: m.Diff(src)}
	build := procgroup.CommandContext(ctx, "go", "build", "-overlay", overlay, "./"+m.Pkg)
	build.Dir = cfg.Root
	if out, err := build.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		res.Status, res.Output, res.Elapsed = NotViable, tail(string(out), 600), time.Since(start)
		return res, nil
	}
	status, out, err := runKiller(ctx, cfg, overlay)
	if err != nil {
		return Result{}, err
	}
	res.Status, res.Elapsed = status, time.Since(start)
	if status != Survived {
		res.Output = tail(out, 600)
	}
	return res, nil
}

// runKiller runs the killer (with the overlay when one is given) in its own
// process group, killed as a group at the timeout.
func runKiller(ctx context.Context, cfg Config, overlay string) (Status, string, error) {
	args := append([]string{"test"}, cfg.Killer[2:]...)
	if overlay != "" {
		args = append([]string{"test", "-overlay", overlay}, cfg.Killer[2:]...)
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := procgroup.CommandContext(cctx, "go", args...)
	cmd.Dir = cfg.Root
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case cctx.Err() != nil:
		return TimedOut, buf.String(), nil
	case err == nil:
		return Survived, buf.String(), nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return "", "", fmt.Errorf("mutate: running the killer: %w", err)
	}
	if bytes.Contains(buf.Bytes(), []byte("[build failed]")) || bytes.Contains(buf.Bytes(), []byte("[setup failed]")) {
		// The mutated package compiled but a test package does not (go
		// test's vet checks): not a kill by any test.
		return NotViable, buf.String(), nil
	}
	if bytes.Contains(buf.Bytes(), []byte("panic: test timed out")) {
		// go test's own -timeout: the mutant hung (or the machine is
		// slow); reported apart from failed checks.
		return TimedOut, buf.String(), nil
	}
	return Killed, buf.String(), nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// pick is the seeded sample, or the mutants named by cfg.Only.
func pick(all []Mutant, pkg string, cfg Config) []Mutant {
	if len(cfg.Only) == 0 {
		return Sample(all, pkg, cfg.Seed, cfg.Budget)
	}
	want := map[string]bool{}
	for _, id := range cfg.Only {
		want[id] = true
	}
	var out []Mutant
	for _, m := range all {
		if want[m.ID()] {
			out = append(out, m)
		}
	}
	return out
}
