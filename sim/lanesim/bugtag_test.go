//go:build !frameproofbugs

package lanesim

import (
	"context"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// taggedBugTests finds every test and example in the module that builds
// only with the bug switches (-tags frameproofbugs): their names and their
// packages (./-relative to root).
func taggedBugTests(t *testing.T, root string) (names, pkgs []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if !needsBugsTag(file) {
			return nil
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil &&
				(strings.HasPrefix(fn.Name.Name, "Test") || strings.HasPrefix(fn.Name.Name, "Example")) {
				names = append(names, fn.Name.Name)
			}
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err == nil && !slices.Contains(pkgs, "./"+rel) {
			pkgs = append(pkgs, "./"+rel)
		}
		return err
	})
	require.NoError(t, err)
	slices.Sort(names)
	slices.Sort(pkgs)
	return names, pkgs
}

// needsBugsTag reports whether file's //go:build line holds with the tag
// and not without it.
func needsBugsTag(file *ast.File) bool {
	for _, group := range file.Comments {
		if group.Pos() >= file.Package {
			break
		}
		for _, c := range group.List {
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			with := expr.Eval(func(tag string) bool { return tag == BugsTag })
			without := expr.Eval(func(string) bool { return false })
			return with && !without
		}
	}
	return false
}

// The tests that prove every bug switch is caught (the mutation score of
// the simulator, the lane's and the JSONL store's bug checks, the lockstep
// comparison, the CLI's repro lines) need -tags frameproofbugs. This runs
// them in a child go test, so plain `go test ./...` still proves every
// switch is caught.
func TestBugSwitchesCaughtWithTheTag(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH: cannot build with -tags " + BugsTag)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	names, pkgs := taggedBugTests(t, root)
	for _, want := range []string{"TestMutationScore", "TestBugsAreCaught", "TestBugsAreWired", "TestMutationImplBugsCaught"} {
		require.Contains(t, names, want, "a bug test lost its tag or its name")
	}
	args := []string{"test", "-count=1", "-tags", BugsTag, "-run", "^(" + strings.Join(names, "|") + ")$"}
	if testing.Short() {
		args = append(args, "-short")
	}
	// The child's tests time out before this test does (a test binary that
	// times out exits by itself), and the child is killed if it outlives
	// that, so a hung child never outlives the run that started it.
	ctx := t.Context()
	if deadline, ok := t.Deadline(); ok {
		if left := time.Until(deadline) - 20*time.Second; left > time.Second {
			args = append(args, "-timeout", left.Round(time.Second).String())
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-10*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, goTool, append(args, pkgs...)...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s\n%s", strings.Join(append(args, pkgs...), " "), out)
	t.Logf("go %s\n%s", strings.Join(append(args, pkgs...), " "), out)
}

// Without the frameproofbugs tag a known bug is refused at setup, never
// silently run as the correct code.
func TestBugsNeedTheTag(t *testing.T) {
	require.False(t, BugsCompiled())
	sc, _ := ScenarioByName("append-order")
	for _, bug := range BugNames() {
		out := sc.Run(choice.NewSeeded(7), Options{Backend: "jsonl", Bugs: []string{bug}})
		require.True(t, out.Failed, bug)
		require.Equal(t, campaign.KindSetup, out.Kind, bug)
		require.Contains(t, out.Message, "-tags frameproofbugs", bug)
	}
}
