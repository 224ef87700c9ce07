package mutate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrConfig marks a Config that describes no mutation run (a bad root,
// package, killer or mutant id): Check's errors wrap it.
var ErrConfig = errors.New("mutate: bad configuration")

// mutantID is the shape of Mutant.ID: file:line:OP@offset.
var mutantID = regexp.MustCompile(`^[^:]+\.go:[0-9]+:[A-Z_]+@[0-9]+$`)

// Check validates cfg without running anything: the killer is a `go test`
// command, Root holds a go.mod, every package directory exists under Root
// and parses, and every Only id is well formed and names a mutant
// of Pkgs. Run calls it before the killer's baseline, so a bad argument is
// reported as one before minutes of go test.
func Check(cfg Config) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, a...))
	}
	if len(cfg.Killer) < 2 || cfg.Killer[0] != "go" || cfg.Killer[1] != "test" {
		return bad("the killer must be a `go test` command, got %q", cfg.Killer)
	}
	if cfg.Timeout < 0 {
		return bad("negative timeout %s", cfg.Timeout)
	}
	if info, err := os.Stat(filepath.Join(cfg.Root, "go.mod")); err != nil || !info.Mode().IsRegular() {
		return bad("module root %s: no go.mod", cfg.Root)
	}
	if len(cfg.Pkgs) == 0 {
		return bad("no packages")
	}
	ids := map[string]bool{}
	for _, pkg := range cfg.Pkgs {
		if pkg == "" || filepath.IsAbs(pkg) || strings.HasPrefix(filepath.Clean(pkg), "..") {
			return bad("package %q: want a directory relative to the module root", pkg)
		}
		all, err := Generate(cfg.Root, pkg)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrConfig, err)
		}
		for _, m := range all {
			ids[m.ID()] = true
		}
	}
	for _, id := range cfg.Only {
		switch {
		case !mutantID.MatchString(id):
			return bad("mutant id %q: want file:line:OP@offset", id)
		case !ids[id]:
			return bad("mutant id %q names no mutant of %s", id, strings.Join(cfg.Pkgs, ","))
		}
	}
	return nil
}
