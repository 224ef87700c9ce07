// Package bench runs frameproof's side-by-side benchmark families (codec vs
// the pi-ai peer, store commits vs a raw write+fsync loop, JSONL open vs
// node's bare JSON.parse, replay, simulator) and renders each as a table with
// both sides and their ratio. `frameproof bench` prints every table; the
// sections of docs/BENCH.md are written by --write, never by hand.
//
// Each family lives in its own file and registers itself with Register.
package bench

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/props/peer"
)

// Options are the knobs every family receives.
type Options struct {
	// Quick shrinks sizes and iteration counts so a family runs in seconds
	// (used by the package's own tests and by CI's smoke run).
	Quick bool
	// PeerDir is the pi-ai peer's directory (corpus/peers/pi-ai); families
	// that compare against node read it. Empty means "find it from the
	// working directory".
	PeerDir string
	// Base is a frameproof binary built from the commit to compare
	// against (the campaign family's other side), Self this build's
	// (empty: the running executable), and Pairs how many times the
	// campaign family runs the two (0: its default).
	Base, Self string
	Pairs      int
}

// Table is one family's result: a header row and data rows, plus notes
// printed under it (the machine, the command, caveats).
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
}

// Family is one benchmark family.
type Family struct {
	Name    string
	Summary string
	Run     func(ctx context.Context, opts Options) ([]Table, error)
	// NeedsBase marks a family that compares this build with a base
	// binary (Options.Base): it runs only when named, since the default
	// run has no base.
	NeedsBase bool
	// Peer is the pinned npm peer the family measures against, if any:
	// tests install it (peer.Require) before running the family.
	Peer peer.Name
	// NeedsNode marks a family that runs node without a peer (the JSONL
	// family's JSON.parse floor); without node it fails with
	// peer.ErrUnavailable.
	NeedsNode bool
	// Shape is what Run returns for opts without its figures: each table's
	// title, header and row count, from the same sizes Run measures. A test
	// holds a quick run to it, and docs/BENCH.md's tables to the full run's.
	Shape func(opts Options) []TableShape
}

// TableShape is what a table's figures do not change: its title, its
// columns and how many rows it has.
type TableShape struct {
	Title  string
	Header []string
	Rows   int
}

// Shape returns t's shape.
func (t Table) Shape() TableShape {
	return TableShape{Title: t.Title, Header: t.Header, Rows: len(t.Rows)}
}

// shapesOf is the shapes of tables, each with rows rows.
func shapesOf(rows int, tables ...Table) []TableShape {
	out := make([]TableShape, len(tables))
	for i, t := range tables {
		out[i] = TableShape{Title: t.Title, Header: t.Header, Rows: rows}
	}
	return out
}

var families = map[string]Family{}

// Register adds a family; called from init in the family's file.
func Register(f Family) {
	if _, dup := families[f.Name]; dup {
		panic("bench: family registered twice: " + f.Name)
	}
	if f.Shape == nil {
		panic("bench: family without a Shape: " + f.Name)
	}
	families[f.Name] = f
}

// Defaults returns the families the default run runs (all but the
// NeedsBase ones), sorted by name.
func Defaults() []Family {
	var out []Family
	for _, f := range Families() {
		if !f.NeedsBase {
			out = append(out, f)
		}
	}
	return out
}

// Families returns every registered family, sorted by name.
func Families() []Family {
	out := make([]Family, 0, len(families))
	for _, f := range families {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the named family.
func Lookup(name string) (Family, bool) {
	f, ok := families[name]
	return f, ok
}

// Render writes t as a GitHub-flavoured Markdown table and returns the first
// write error, so a caller never reports success for output that was lost.
func Render(w io.Writer, t Table) error {
	var b strings.Builder
	if t.Title != "" {
		fmt.Fprintf(&b, "### %s\n\n", t.Title)
	}
	b.WriteString("| " + strings.Join(t.Header, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat("---|", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	for _, n := range t.Notes {
		b.WriteString("\n" + n + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Ratio formats a/b as "12.3×", or "n/a" when b is not positive.
func Ratio(a, b float64) string {
	if b <= 0 || a <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f×", a/b)
}
