package env

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layering rules of DESIGN.md, checked over every Go file of the module
// (tests included, since a test that imports across a layer couples the
// layers just as much):
//   - impl/* imports no model, sim, props or faults;
//   - model/* imports from the module only impl/pi and model/*, and outside
//     its tests nothing but the standard library besides;
//   - sim/* imports no props;
//   - nothing imports cmd.

// layerViolation reports why pkg may not import imp ("" when it may). Both
// are module-relative ("impl/lane"); imp is "" for the standard library and
// the full path for a third-party package. test says the importing file is a
// _test.go file.
func layerViolation(pkg, imp string, thirdParty, test bool) string {
	under := func(p, layer string) bool { return p == layer || strings.HasPrefix(p, layer+"/") }
	switch {
	case !thirdParty && under(imp, "cmd"):
		return "nothing imports cmd"
	case under(pkg, "impl") && !thirdParty &&
		(under(imp, "model") || under(imp, "sim") || under(imp, "props") || under(imp, "faults")):
		return "impl imports no model, sim, props or faults"
	case under(pkg, "model") && thirdParty && !test:
		return "model imports only impl/pi and the standard library"
	case under(pkg, "model") && !thirdParty && imp != "" && imp != "impl/pi" && !under(imp, "model"):
		return "model imports only impl/pi and the standard library"
	case under(pkg, "sim") && !thirdParty && under(imp, "props"):
		return "sim imports no props"
	}
	return ""
}

// fileLayerViolations lists the rule breaks of one source file of package
// pkg (module-relative) in module mod.
func fileLayerViolations(mod, pkg, filename string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	test := strings.HasSuffix(filename, "_test.go")
	var out []string
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %w", fset.Position(spec.Pos()), spec.Path.Value, err)
		}
		imp, thirdParty := "", false
		switch {
		case path == mod || strings.HasPrefix(path, mod+"/"):
			imp = strings.TrimPrefix(strings.TrimPrefix(path, mod), "/")
		case strings.Contains(strings.SplitN(path, "/", 2)[0], "."):
			imp, thirdParty = path, true
		}
		if why := layerViolation(pkg, imp, thirdParty, test); why != "" {
			out = append(out, fmt.Sprintf("%s -> %s (%s: %s)", pkg, imp, fset.Position(spec.Pos()), why))
		}
	}
	return out, nil
}

// moduleLayerViolations walks the module rooted at root and returns every
// rule break keyed "importer -> imported", with the places it happens.
func moduleLayerViolations(t *testing.T, root string) (map[string][]string, int) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	mod := ""
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			mod = strings.TrimSpace(rest)
		}
	}
	require.NotEmpty(t, mod, "go.mod names no module")
	found := map[string][]string{}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// the go tool ignores these too
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		vs, err := fileLayerViolations(mod, filepath.ToSlash(rel), path, src)
		if err != nil {
			return err
		}
		for _, v := range vs {
			key, where, _ := strings.Cut(v, " (")
			found[key] = append(found[key], strings.TrimSuffix(where, ")"))
		}
		return nil
	})
	require.NoError(t, err)
	return found, files
}

// TestLayering fails on any import that breaks the layering rules.
func TestLayering(t *testing.T) {
	found, files := moduleLayerViolations(t, filepath.Join("..", ".."))
	require.Greater(t, files, 100, "walked too few files: is the module root right?")
	var bad []string
	for key, where := range found {
		bad = append(bad, key+"\n\t"+strings.Join(where, "\n\t"))
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("imports that break the layering of DESIGN.md:\n%s", strings.Join(bad, "\n"))
	}
	t.Logf("checked the imports of %d files", files)
}

// TestLayerCheckerCatchesViolations is the mutation test for the checker.
func TestLayerCheckerCatchesViolations(t *testing.T) {
	const mod = "example.com/m"
	imp := func(path string) []byte { return []byte("package x\nimport _ \"" + path + "\"\n") }
	bad := []struct{ pkg, file, path string }{
		{"impl/lane", "a.go", mod + "/model/lane"},
		{"impl/lane", "a_test.go", mod + "/sim/world"},
		{"impl/store/jsonl", "a.go", mod + "/props/crash"},
		{"impl/store", "a.go", mod + "/faults"},
		{"model/lane", "a.go", mod + "/impl/lane"},
		{"model/lane", "a_test.go", mod + "/props/lane"},
		{"model/frames", "a.go", "github.com/google/go-cmp/cmp"},
		{"sim/lanesim", "a.go", mod + "/props/invariants"},
		{"sim", "a_test.go", mod + "/props"},
		{"props/lane", "a.go", mod + "/cmd/frameproof"},
	}
	for _, c := range bad {
		found, err := fileLayerViolations(mod, c.pkg, c.file, imp(c.path))
		require.NoError(t, err)
		assert.NotEmpty(t, found, "checker missed %s (%s) importing %s", c.pkg, c.file, c.path)
	}
	good := []struct{ pkg, file, path string }{
		{"impl/lane", "a.go", mod + "/impl/store"},
		{"impl/lane", "a.go", "github.com/google/go-cmp/cmp"},
		{"model/lane", "a.go", mod + "/impl/pi"},
		{"model/lane", "a.go", mod + "/model/frames"},
		{"model/lane", "a.go", "encoding/json"},
		{"model/lane", "a_test.go", "pgregory.net/rapid"},
		{"sim/lanesim", "a.go", mod + "/model/lane"},
		{"props/lane", "a.go", mod + "/sim/world"},
		{"cmd/frameproof", "a.go", mod + "/props/provider"},
		{"impl/lane", "a.go", "example.com/mod/model"}, // another module that shares a prefix
	}
	for _, c := range good {
		found, err := fileLayerViolations(mod, c.pkg, c.file, imp(c.path))
		require.NoError(t, err)
		assert.Empty(t, found, "%s (%s) may import %s", c.pkg, c.file, c.path)
	}
}
