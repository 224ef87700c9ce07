// Package mutate is frameproof's mutation tester: it generates mutants of a
// Go package's source with go/ast (flipped comparisons, swapped logic,
// negated conditions, deleted assignments and calls, swallowed errors,
// off-by-one constants), applies one at a time through `go test -overlay`
// (the working tree is never edited), and runs a killer test command
// against each. A mutant the killer does not fail is a survivor, printed
// as a diff for a person to judge: equivalent, or a blind spot.
//
// gremlins (go-gremlins v0.6.0) was tried first. It cannot run a chosen
// killer: it runs `go test` on the mutated package (impl's own unit tests,
// which this measure must not count) or, with --integration, the whole
// module's tests; it has no seeded sampling and no error-swallowing or
// statement-deleting operators.
package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Mutant is one source edit: bytes [Start, End) of File become Repl.
type Mutant struct {
	Pkg   string // package directory, relative to the module root (impl/lane)
	File  string // file path, relative to the module root
	Line  int
	Op    string // operator name (COMPARE, LOGIC, NEGATE, DROP_ASSIGN, DROP_CALL, RETURN_NIL, OFF_BY_ONE)
	Start int
	End   int
	Orig  string
	Repl  string
}

// ID names a mutant stably: file:line:op:offset.
func (m Mutant) ID() string { return fmt.Sprintf("%s:%d:%s@%d", m.File, m.Line, m.Op, m.Start) }

// Apply returns src with the mutant's edit made.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.Repl))
	out = append(out, src[:m.Start]...)
	out = append(out, m.Repl...)
	return append(out, src[m.End:]...)
}

// Diff is a small unified-style diff of the lines the mutant changes.
func (m Mutant) Diff(src []byte) string {
	lo := bytes.LastIndexByte(src[:m.Start], '\n') + 1
	hi := m.End + bytes.IndexByte(src[m.End:], '\n')
	if hi < m.End {
		hi = len(src)
	}
	before := string(src[lo:hi])
	after := before[:m.Start-lo] + m.Repl + before[m.End-lo:]
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s:%d (%s)\n", m.File, m.Line, m.Op)
	for _, l := range strings.Split(before, "\n") {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range strings.Split(after, "\n") {
		b.WriteString("+" + l + "\n")
	}
	return b.String()
}

// skipLine reports lines the mutator leaves alone: the deliberate bug
// switches (mutating them only turns a planted bug on or off).
func skipLine(line string) bool {
	return strings.Contains(line, "Bugs.") || strings.Contains(line, "bugs.") || strings.Contains(line, "Bug(")
}

// Generate parses the non-test .go files of the package in root/pkg that
// the default build compiles (not bugs_on.go, compiled only with the bug
// switches; not bugs.go and bugs_off.go, the bug tables and their off
// switch) and returns every mutant, in file and offset order.
func Generate(root, pkg string) ([]Mutant, error) {
	dir := filepath.Join(root, pkg)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("mutate: reading package %s: %w", pkg, err)
	}
	var out []Mutant
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == "bugs.go" || name == "bugs_off.go" {
			continue
		}
		built, err := build.Default.MatchFile(dir, name)
		if err != nil {
			return nil, fmt.Errorf("mutate: build constraints of %s/%s: %w", pkg, name, err)
		}
		if !built {
			continue // a mutant the default build never compiles cannot be killed
		}
		rel := filepath.ToSlash(filepath.Join(pkg, name))
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("mutate: reading %s: %w", rel, err)
		}
		ms, err := FileMutants(pkg, rel, src)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

// FileMutants returns the mutants of one file's source.
func FileMutants(pkg, rel string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("mutate: parsing %s: %w", rel, err)
	}
	g := &generator{pkg: pkg, rel: rel, src: src, fset: fset}
	ast.Inspect(f, g.visit)
	sort.SliceStable(g.out, func(i, j int) bool { return g.out[i].Start < g.out[j].Start })
	return g.out, nil
}

type generator struct {
	pkg, rel string
	src      []byte
	fset     *token.FileSet
	out      []Mutant
}

func (g *generator) off(p token.Pos) int { return g.fset.Position(p).Offset }

func (g *generator) text(n ast.Node) string { return string(g.src[g.off(n.Pos()):g.off(n.End())]) }

func (g *generator) add(op string, start, end int, repl string) {
	line := bytes.Count(g.src[:start], []byte("\n")) + 1
	lo := bytes.LastIndexByte(g.src[:start], '\n') + 1
	hi := start + bytes.IndexByte(g.src[start:], '\n')
	if hi < start {
		hi = len(g.src)
	}
	if skipLine(string(g.src[lo:hi])) {
		return
	}
	g.out = append(g.out, Mutant{Pkg: g.pkg, File: g.rel, Line: line, Op: op, Start: start, End: end,
		Orig: string(g.src[start:end]), Repl: repl})
}

var flips = map[token.Token]string{
	token.LSS: "<=", token.LEQ: "<", token.GTR: ">=", token.GEQ: ">",
	token.EQL: "!=", token.NEQ: "==", token.LAND: "||", token.LOR: "&&",
}

func (g *generator) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.GenDecl:
		// Constants and package-level variables (regexp tables, strings)
		// are data, not logic; their mutants are mostly noise.
		return n.Tok != token.CONST && n.Tok != token.VAR
	case *ast.BinaryExpr:
		if repl, ok := flips[n.Op]; ok {
			op := "COMPARE"
			if n.Op == token.LAND || n.Op == token.LOR {
				op = "LOGIC"
			}
			s := g.off(n.OpPos)
			g.add(op, s, s+len(n.Op.String()), repl)
		}
	case *ast.IfStmt:
		g.negate(n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			g.negate(n.Cond)
		}
	case *ast.AssignStmt:
		g.dropAssign(n)
	case *ast.ExprStmt:
		if _, ok := n.X.(*ast.CallExpr); ok && !g.isPanic(n.X) {
			g.add("DROP_CALL", g.off(n.Pos()), g.off(n.End()), "{}")
		}
	case *ast.ReturnStmt:
		for _, r := range n.Results {
			if isErrorExpr(r) {
				g.add("RETURN_NIL", g.off(r.Pos()), g.off(r.End()), "nil")
			}
		}
	case *ast.BasicLit:
		if n.Kind == token.INT {
			if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
				g.add("OFF_BY_ONE", g.off(n.Pos()), g.off(n.End()), strconv.FormatInt(v+1, 10))
			}
		}
	}
	return true
}

// negate wraps a condition that is not already a flippable comparison, or
// removes a leading `!`.
func (g *generator) negate(cond ast.Expr) {
	if b, ok := cond.(*ast.BinaryExpr); ok {
		if _, flippable := flips[b.Op]; flippable {
			return
		}
	}
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		g.add("NEGATE", g.off(u.Pos()), g.off(u.End()), g.text(u.X))
		return
	}
	g.add("NEGATE", g.off(cond.Pos()), g.off(cond.End()), "!("+g.text(cond)+")")
}

// dropAssign turns `x = e` (and `x += e`) into `_ = e`, keeping e
// evaluated so the mutant usually still compiles.
func (g *generator) dropAssign(n *ast.AssignStmt) {
	if n.Tok == token.DEFINE || len(n.Lhs) != 1 || len(n.Rhs) != 1 {
		return
	}
	if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
		return
	}
	g.add("DROP_ASSIGN", g.off(n.Pos()), g.off(n.End()), "_ = "+g.text(n.Rhs[0]))
}

func (g *generator) isPanic(e ast.Expr) bool {
	c := e.(*ast.CallExpr)
	id, ok := c.Fun.(*ast.Ident)
	return ok && id.Name == "panic"
}

// isErrorExpr recognises an error being returned: a variable named err (or
// ending in Err), or a call to fmt.Errorf / errors.New.
func isErrorExpr(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "err" || strings.HasSuffix(e.Name, "Err")
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && ((x.Name == "fmt" && sel.Sel.Name == "Errorf") || (x.Name == "errors" && sel.Sel.Name == "New"))
	}
	return false
}
