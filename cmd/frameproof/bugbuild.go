package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// The bug switches of impl/lane and impl/store/jsonl are compiled in only
// with the frameproofbugs build tag, so the binary users run carries no
// injected defect. A command asked for --bug in a build without them
// builds frameproof again with the tag (go build, from the module's source,
// with the go toolchain on PATH) and runs that binary with the same
// arguments: its output, exit code and interrupts pass through. go build
// rather than go run: go run turns every non-zero exit into 1.

// modulePath is this module's path; a go.mod declaring it marks the source.
const modulePath = "github.com/frameproof/frameproof"

// bugBuildEnv is set in the rebuilt child, which must never rebuild again.
const bugBuildEnv = "FRAMEPROOF_BUG_BUILD"

// needsBugBuild reports whether a run with bugs needs the rebuilt binary.
func needsBugBuild(suite campaign.Suite, bugs []string) bool {
	return len(bugs) > 0 && !suite.BugsCompiled()
}

// runBugBuild runs `frameproof args...` (args[0] the subcommand) in a build
// with the bug switches and returns its exit code: the environment class's
// (4) with the command to run when the toolchain or the source is missing.
func runBugBuild(args []string, stdout, stderr io.Writer) int {
	who := args[0]
	if os.Getenv(bugBuildEnv) != "" {
		return ioError(stderr, who, "this rebuilt binary still has no bug switches (-tags %s)", lanesim.BugsTag)
	}
	goTool, root, err := bugBuildSource()
	if err != nil {
		// The flags are fine; the machine lacks what --bug needs.
		return envError(stderr, who, "--bug needs the bug switches, which this build lacks (%v): run go run -tags %s ./cmd/frameproof %s from a frameproof checkout",
			err, lanesim.BugsTag, shellJoin(args))
	}
	dir, err := bugBuildDir()
	if err != nil {
		return ioError(stderr, who, "temporary directory: %v", unwrapPath(err))
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "frameproof")
	if code := buildWithBugs(goTool, root, bin, who, stderr); code >= 0 {
		return code
	}
	return runChild(bin, args, stdout, stderr)
}

// bugBuildDirEnv names the directory the rebuilt binary is written under.
const bugBuildDirEnv = "FRAMEPROOF_BUG_BUILD_DIR"

// bugBuildDir makes a fresh directory for the rebuilt binary: under
// $FRAMEPROOF_BUG_BUILD_DIR when set, else under the user's cache directory
// (where go build itself runs binaries from, so rarely noexec), else under
// the system's temporary directory.
func bugBuildDir() (string, error) {
	if d := os.Getenv(bugBuildDirEnv); d != "" {
		return os.MkdirTemp(d, "frameproof-bugbuild-*")
	}
	if cache, err := os.UserCacheDir(); err == nil {
		parent := filepath.Join(cache, "frameproof")
		if os.MkdirAll(parent, 0o755) == nil {
			if dir, err := os.MkdirTemp(parent, "bugbuild-*"); err == nil {
				return dir, nil
			}
		}
	}
	return os.MkdirTemp("", "frameproof-bugbuild-*")
}

// buildWithBugs builds cmd/frameproof of root with the bug switches into
// bin; it returns -1 on success, else the exit code to stop with.
func buildWithBugs(goTool, root, bin, who string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "frameproof %s: --bug: building frameproof with -tags %s from %s\n", who, lanesim.BugsTag, root)
	ctx, stop := interruptContext()
	defer stop()
	build := procgroup.CommandContext(ctx, goTool, "build", "-tags", lanesim.BugsTag, "-o", bin, "./cmd/frameproof")
	build.Dir, build.Stdout, build.Stderr = root, stderr, stderr
	if err := build.Run(); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "frameproof %s: interrupted while building the bug switches in\n", who)
			return exitCode(classInterrupted)
		}
		return envError(stderr, who, "go build -tags %s ./cmd/frameproof in %s: %v", lanesim.BugsTag, root, err)
	}
	return -1
}

// runChild runs bin in its own process group with args and returns its
// exit code. The first SIGINT or SIGTERM is passed on as SIGINT (a
// campaign then finishes its runs in progress and reports, as it does when
// run directly); the next kills the child's whole group.
func runChild(bin string, args []string, stdout, stderr io.Writer) int {
	who := args[0]
	child := exec.Command(bin, args...)
	procgroup.Own(child)
	dieWithParent(child)
	// Pdeathsig fires when the starting OS thread exits; keep this
	// goroutine on that thread until the child is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	child.Stdout, child.Stderr = stdout, stderr
	child.Env = append(os.Environ(), bugBuildEnv+"=1")
	sigs, unsubscribe := simSignals()
	defer unsubscribe()
	if err := child.Start(); err != nil {
		return ioError(stderr, who, "start the bug build %s: %v (a directory mounted noexec? set %s to one that is not, or run go run -tags %s ./cmd/frameproof %s)",
			bin, err, bugBuildDirEnv, lanesim.BugsTag, shellJoin(args))
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	interrupts := 0
	for {
		select {
		case <-sigs:
			interrupts++
			if interrupts == 1 {
				_ = child.Process.Signal(os.Interrupt)
			} else {
				procgroup.Kill(child)
			}
		case err := <-done:
			return childExitCode(err, interrupts > 0, who, stderr)
		}
	}
}

// childExitCode is the exit code of a finished child: its own, or 3 when
// an interrupt killed it, or 4 when it could not run.
func childExitCode(err error, interrupted bool, who string, stderr io.Writer) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitPass
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	case interrupted:
		return exitInconclusive
	}
	return ioError(stderr, who, "the bug build: %v", err)
}

// bugBuildSource finds the go toolchain and this module's source: the
// working directory or the executable's, or one of their parents.
func bugBuildSource() (goTool, root string, err error) {
	goTool, err = exec.LookPath("go")
	if err != nil {
		return "", "", errors.New("no go toolchain on PATH")
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		if root, ok := moduleRootAbove(start); ok {
			return goTool, root, nil
		}
	}
	return "", "", fmt.Errorf("no %s source above the working directory", modulePath)
}

// moduleRootAbove finds the nearest directory at or above dir whose go.mod
// declares modulePath and that holds cmd/frameproof.
func moduleRootAbove(dir string) (string, bool) {
	for {
		if declaresModule(filepath.Join(dir, "go.mod")) {
			if st, err := os.Stat(filepath.Join(dir, "cmd", "frameproof")); err == nil && st.IsDir() {
				return dir, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// maxGoModScan bounds the bytes of a go.mod read for its module line.
const maxGoModScan = 64 << 10

// declaresModule reports whether the go.mod at path declares modulePath.
func declaresModule(path string) bool {
	f, _, _, err := openRegular(path, path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxGoModScan))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// shellJoin quotes args for a POSIX shell where they need it.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@%") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
