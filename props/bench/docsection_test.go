package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleTables() []Table {
	return []Table{
		{Title: "A", Header: []string{"size", "ns"}, Rows: [][]string{{"1", "2"}, {"3", "4"}}, Notes: []string{"a note | with a bar"}},
		{Title: "B", Header: []string{"x", "y", "z"}, Rows: [][]string{{"1", "2", "3"}}},
	}
}

// A section replaces its own lines only: the prose around it and other
// families' sections stay, a second write replaces the first, and a
// family without a section is appended.
func TestReplaceSectionKeepsTheRest(t *testing.T) {
	tables := sampleTables()
	first, err := RenderSection("one", Options{}, tables)
	require.NoError(t, err)
	doc := []byte("# Doc\n\nprose before\n")
	doc, err = ReplaceSection(doc, "one", first)
	require.NoError(t, err)
	other, err := RenderSection("two", Options{Quick: true, Pairs: 4}, tables[1:])
	require.NoError(t, err)
	doc, err = ReplaceSection(doc, "two", other)
	require.NoError(t, err)
	doc = append(doc, "prose after\n"...)

	tables[0].Rows = append(tables[0].Rows, []string{"5", "6"})
	second, err := RenderSection("one", Options{}, tables)
	require.NoError(t, err)
	doc, err = ReplaceSection(doc, "one", second)
	require.NoError(t, err)

	s := string(doc)
	assert.True(t, strings.HasPrefix(s, "# Doc\n\nprose before\n\n<!-- bench family=one "), s)
	assert.True(t, strings.HasSuffix(s, "<!-- /bench family=two -->\nprose after\n"), s)
	sections, err := ParseSections(doc)
	require.NoError(t, err)
	require.Len(t, sections, 2)
	assert.Equal(t, Section{Family: "one", Tables: []TableShape{
		{Title: "A", Header: []string{"size", "ns"}, Rows: 3},
		{Title: "B", Header: []string{"x", "y", "z"}, Rows: 1},
	}}, sections[0])
	assert.Equal(t, Options{Quick: true, Pairs: 4}, sections[1].Opts)
	assert.Equal(t, []TableShape{{Title: "B", Header: []string{"x", "y", "z"}, Rows: 1}}, sections[1].Tables)
}

// A hand edit that breaks a table's shape or a marker is refused by the
// parser, naming the line.
func TestParseSectionsRefusesBrokenSections(t *testing.T) {
	section, err := RenderSection("one", Options{}, sampleTables())
	require.NoError(t, err)
	_, err = ParseSections([]byte(strings.Replace(string(section), "| 3 | 4 |", "| 3 | 4 | 5 |", 1)))
	require.ErrorContains(t, err, "a row of 3 cells under 2 columns")
	_, err = ParseSections([]byte(strings.Replace(string(section), "<!-- /bench family=one -->\n", "", 1)))
	require.ErrorContains(t, err, "no end marker")
	_, err = ReplaceSection([]byte(strings.Replace(string(section), "<!-- /bench family=one -->\n", "", 1)), "one", section)
	require.ErrorContains(t, err, "no end marker")
}

// docs/BENCH.md holds one section per registered family, and each of its
// tables has the title, the columns and the row count its family's Shape
// gives for the options the section was written with: a table copied by
// hand, or a family whose output changed shape since, fails here.
func TestBenchDocMatchesItsFamilies(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "BENCH.md"))
	require.NoError(t, err)
	sections, err := ParseSections(doc)
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, s := range sections {
		f, ok := Lookup(s.Family)
		require.True(t, ok, "docs/BENCH.md: section of unknown family %q", s.Family)
		require.False(t, seen[s.Family], "docs/BENCH.md: two sections of %s", s.Family)
		seen[s.Family] = true
		assert.False(t, s.Opts.Quick, "docs/BENCH.md: %s's section is a --quick smoke run, not figures", s.Family)
		assert.Equal(t, f.Shape(s.Opts), s.Tables, "docs/BENCH.md: %s's tables against its Shape", s.Family)
	}
	for _, f := range Families() {
		assert.True(t, seen[f.Name], "docs/BENCH.md has no section of %s (frameproof bench --family %s --write docs/BENCH.md)", f.Name, f.Name)
	}
}

// Every table of figures exists once: no other document of the repository
// carries a copy of a family's table (its title as a heading), so a copy
// cannot drift from the run docs/BENCH.md holds.
func TestBenchTablesExistOnce(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	require.NoError(t, err)
	docs = append(docs, filepath.Join("..", "..", "README.md"))
	for _, f := range Families() {
		for _, shape := range f.Shape(Options{}) {
			for _, path := range docs {
				if filepath.Base(path) == "BENCH.md" {
					continue
				}
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "### "+shape.Title, "%s copies a table of docs/BENCH.md", path)
			}
		}
	}
}
