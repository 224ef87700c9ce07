package env

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bugsTag is the build tag that compiles the simulator's bug switches in.
const bugsTag = "frameproofbugs"

// bugSeamPackages are the production packages whose injectable defects sit
// behind bugsTag: impl/lane and every store package.
func bugSeamPackages(t *testing.T, root string) []string {
	t.Helper()
	dirs := []string{filepath.Join(root, "impl", "lane")}
	err := filepath.WalkDir(filepath.Join(root, "impl", "store"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() != "testdata" {
			dirs = append(dirs, path)
		}
		return err
	})
	require.NoError(t, err)
	return dirs
}

// exportedBugSymbols lists the exported names mentioning "Bug" (top-level
// declarations, methods and struct fields) that the package in dir compiles
// with the given tags, BugNames aside: the names of the bugs are not
// switches.
func exportedBugSymbols(t *testing.T, dir string, tags []string) []string {
	t.Helper()
	ctx := build.Default
	ctx.BuildTags = tags
	pkg, err := ctx.ImportDir(dir, 0)
	if _, none := err.(*build.NoGoError); none {
		return nil
	}
	require.NoError(t, err, dir)
	var out []string
	note := func(id *ast.Ident) {
		if id.IsExported() && strings.Contains(id.Name, "Bug") && id.Name != "BugNames" {
			out = append(out, id.Name)
		}
	}
	for _, name := range pkg.GoFiles {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				note(n.Name)
			case *ast.TypeSpec:
				note(n.Name)
			case *ast.ValueSpec:
				for _, id := range n.Names {
					note(id)
				}
			case *ast.Field:
				for _, id := range n.Names {
					note(id)
				}
			}
			return true
		})
	}
	slices.Sort(out)
	return out
}

// The default build of the lane and the stores exports no bug switch: no
// Config or Options field, no setter. With the tag the setters exist, which
// shows the check sees them.
func TestDefaultBuildHasNoBugSwitches(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, dir := range bugSeamPackages(t, root) {
		assert.Empty(t, exportedBugSymbols(t, dir, nil), "%s exports bug switches without -tags %s", dir, bugsTag)
	}
	for _, dir := range []string{filepath.Join(root, "impl", "lane"), filepath.Join(root, "impl", "store", "jsonl"), filepath.Join(root, "impl", "store", "fork")} {
		assert.Equal(t, []string{"WithBugs"}, exportedBugSymbols(t, dir, []string{bugsTag}), dir)
	}
}

// The check sees a switch in an options struct, as the lane had before
// the tag (lane.Config.Bugs of type lane.Bugs).
func TestBugSwitchCheckSeesFields(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\ntype Bugs struct{ SkipDrain bool }\n\ntype Config struct {\n\tName string\n\tBugs Bugs\n}\n\nfunc BugNames() []string { return nil }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644))
	assert.Equal(t, []string{"Bugs", "Bugs"}, exportedBugSymbols(t, dir, nil))
}
