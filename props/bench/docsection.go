package bench

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A document's bench section is one family's tables from one run, between
// two marker lines that `frameproof bench --write FILE` owns:
//
//	<!-- bench family=codec quick=false pairs=0: written by `frameproof bench --write`, do not edit -->
//	### Codec: ...
//	...
//	<!-- /bench family=codec -->
//
// The begin marker records the options the shape depends on, so a test can
// hold each documented table to its family's Shape.

// Section is one family's section of a document.
type Section struct {
	Family string
	Opts   Options // Quick and Pairs: what the shape depends on
	Tables []TableShape
}

var (
	beginMarker = regexp.MustCompile(`^<!-- bench family=([a-z0-9-]+) quick=(true|false) pairs=(\d+)[^>]*-->$`)
	endMarker   = regexp.MustCompile(`^<!-- /bench family=([a-z0-9-]+) -->$`)
)

// RenderSection renders one family's run as its section.
func RenderSection(family string, o Options, tables []Table) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- bench family=%s quick=%t pairs=%d: written by `frameproof bench --write`, do not edit -->\n\n", family, o.Quick, o.Pairs)
	for _, t := range tables {
		if err := Render(&b, t); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(&b, "<!-- /bench family=%s -->\n", family)
	return b.Bytes(), nil
}

// ReplaceSection returns doc with family's section replaced by section, or
// with section appended (after a blank line) when doc has none.
func ReplaceSection(doc []byte, family string, section []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(doc), "\n")
	begin, end := -1, -1
	for i, l := range lines {
		l = strings.TrimRight(l, "\n")
		if m := beginMarker.FindStringSubmatch(l); m != nil && m[1] == family {
			if begin >= 0 {
				return nil, fmt.Errorf("bench: two sections of family %s", family)
			}
			begin = i
		}
		if m := endMarker.FindStringSubmatch(l); m != nil && m[1] == family && begin >= 0 && end < 0 {
			end = i
		}
	}
	var out strings.Builder
	switch {
	case begin < 0:
		out.Write(doc)
		if len(doc) > 0 && !bytes.HasSuffix(doc, []byte("\n\n")) {
			out.WriteString(strings.Repeat("\n", 2-min(2, trailingNewlines(doc))))
		}
		out.Write(section)
	case end < 0:
		return nil, fmt.Errorf("bench: section of family %s has no end marker", family)
	default:
		out.WriteString(strings.Join(lines[:begin], ""))
		out.Write(section)
		out.WriteString(strings.Join(lines[end+1:], ""))
	}
	return []byte(out.String()), nil
}

func trailingNewlines(b []byte) int {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\n'; i-- {
		n++
	}
	return n
}

// ParseSections reads every bench section of doc with its tables' shapes.
func ParseSections(doc []byte) ([]Section, error) {
	var out []Section
	var cur *Section
	var table *TableShape
	for n, l := range strings.Split(string(doc), "\n") {
		at := func(format string, a ...any) error {
			return fmt.Errorf("bench: line %d: %s", n+1, fmt.Sprintf(format, a...))
		}
		if m := beginMarker.FindStringSubmatch(l); m != nil {
			if cur != nil {
				return nil, at("section %s begins inside section %s", m[1], cur.Family)
			}
			pairs, err := strconv.Atoi(m[3])
			if err != nil {
				return nil, at("pairs: %v", err)
			}
			cur = &Section{Family: m[1], Opts: Options{Quick: m[2] == "true", Pairs: pairs}}
			continue
		}
		if m := endMarker.FindStringSubmatch(l); m != nil {
			if cur == nil || m[1] != cur.Family {
				return nil, at("end of section %s that did not begin", m[1])
			}
			out = append(out, *cur)
			cur, table = nil, nil
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(l, "### "):
			cur.Tables = append(cur.Tables, TableShape{Title: strings.TrimPrefix(l, "### ")})
			table = &cur.Tables[len(cur.Tables)-1]
		case strings.HasPrefix(l, "|") && table != nil:
			cells := tableCells(l)
			switch {
			case table.Header == nil:
				table.Header = cells
			case strings.HasPrefix(l, "|---"):
			default:
				if len(cells) != len(table.Header) {
					return nil, at("%s: a row of %d cells under %d columns", table.Title, len(cells), len(table.Header))
				}
				table.Rows++
			}
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("bench: section %s has no end marker", cur.Family)
	}
	return out, nil
}

// tableCells splits a Markdown table row into its trimmed cells.
func tableCells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	cells := strings.Split(row, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}
