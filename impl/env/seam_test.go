package env

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forbiddenCalls are package-qualified calls that bypass the seam.
var forbiddenCalls = map[string]map[string]bool{
	"time": {"Now": true, "Sleep": true, "After": true, "AfterFunc": true, "NewTimer": true,
		"NewTicker": true, "Tick": true, "Since": true, "Until": true},
	"os": {"Open": true, "OpenFile": true, "Create": true, "ReadFile": true, "WriteFile": true,
		"Remove": true, "RemoveAll": true, "Rename": true, "Mkdir": true, "MkdirAll": true,
		"MkdirTemp": true, "CreateTemp": true, "ReadDir": true, "Stat": true, "Lstat": true,
		"Truncate": true, "Chmod": true, "Chtimes": true, "Symlink": true, "Link": true, "DirFS": true,
		"Chdir": true, "Getwd": true},
	// These walk or list the real file system.
	"path/filepath": {"Walk": true, "WalkDir": true, "Glob": true, "EvalSymlinks": true, "Abs": true},
}

// forbiddenImports may not be imported at all outside impl/env: randomness,
// and packages whose only job is files or processes outside the seam.
var forbiddenImports = map[string]bool{"math/rand": true, "math/rand/v2": true, "crypto/rand": true,
	"io/ioutil": true, "os/exec": true, "syscall": true}

// seamViolations lists every way src bypasses the determinism seam.
func seamViolations(filename string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	// Map local import names to import paths so that renamed imports are caught.
	local := map[string]string{}
	var out []string
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
		if forbiddenImports[path] {
			out = append(out, fmt.Sprintf("%s: imports %s", fset.Position(imp.Pos()), path))
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GoStmt:
			out = append(out, fmt.Sprintf("%s: go statement (use env.Executor.Go)", fset.Position(n.Pos())))
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			if names := forbiddenCalls[local[id.Name]]; names[n.Sel.Name] {
				out = append(out, fmt.Sprintf("%s: %s.%s bypasses impl/env", fset.Position(n.Pos()), local[id.Name], n.Sel.Name))
			}
		}
		return true
	})
	return out, nil
}

// TestNoRawNondeterminism walks impl/ (except impl/env and tests) and fails
// on any raw time, randomness, file call or go statement.
func TestNoRawNondeterminism(t *testing.T) {
	root := filepath.Join("..")
	var violations []string
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if filepath.Base(path) == "env" && filepath.Dir(path) == root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		found, err := seamViolations(path, src)
		if err != nil {
			return err
		}
		violations = append(violations, found...)
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, violations, "impl/ must go through impl/env")
	t.Logf("checked %d non-test files under impl/", files)
}

// TestSeamCheckerCatchesViolations is the mutation test for the checker:
// each deliberately broken source must be reported.
func TestSeamCheckerCatchesViolations(t *testing.T) {
	cases := map[string]string{
		"time.Now":          "package x\nimport \"time\"\nvar _ = time.Now()",
		"renamed time":      "package x\nimport t \"time\"\nfunc f() { t.Sleep(1) }",
		"math/rand":         "package x\nimport \"math/rand\"\nvar _ = rand.Int()",
		"rand/v2":           "package x\nimport \"math/rand/v2\"\nvar _ = rand.N(3)",
		"os.ReadFile":       "package x\nimport \"os\"\nvar _, _ = os.ReadFile(\"a\")",
		"os.OpenFile":       "package x\nimport \"os\"\nvar _, _ = os.OpenFile(\"a\", 0, 0)",
		"go statement":      "package x\nfunc f() { go f() }",
		"time.After":        "package x\nimport \"time\"\nvar _ = time.After(1)",
		"os.Rename":         "package x\nimport \"os\"\nvar _ = os.Rename(\"a\", \"b\")",
		"crypto/rand usage": "package x\nimport \"crypto/rand\"\nvar _ = rand.Reader",
		"io/ioutil":         "package x\nimport \"io/ioutil\"\nvar _, _ = ioutil.ReadFile(\"a\")",
		"os/exec":           "package x\nimport \"os/exec\"\nvar _ = exec.Command(\"ls\")",
		"filepath.WalkDir":  "package x\nimport \"path/filepath\"\nvar _ = filepath.WalkDir(\".\", nil)",
		"filepath.Glob":     "package x\nimport \"path/filepath\"\nvar _, _ = filepath.Glob(\"*\")",
		"os.Getwd":          "package x\nimport \"os\"\nvar _, _ = os.Getwd()",
	}
	for name, src := range cases {
		found, err := seamViolations(name+".go", []byte(src))
		require.NoError(t, err, name)
		assert.NotEmpty(t, found, "checker missed %s", name)
	}
	clean := "package x\nimport (\"time\"; \"path/filepath\")\nvar _ time.Duration = time.Millisecond\nvar _ = filepath.Join(\"a\", \"b\")\nfunc f(c interface{ Now() time.Time }) { _ = c.Now() }"
	found, err := seamViolations("clean.go", []byte(clean))
	require.NoError(t, err)
	assert.Empty(t, found, "durations, path arithmetic and injected clocks are allowed")
}
