package jsonl

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/store"
)

// scanRest (the line's newline and UTF-8 found by its scan) and the
// scanner's memo open every file exactly as finding the newline and
// checking the line's UTF-8 first and scanning every value whole do
// (Options.lineByLine, noMemo): the same entries, usage, values, lists,
// stats and dead bytes, the same file left behind, or the same error at
// the same line. The files are sessions of every kind of record, with
// invalid UTF-8, escaped lone surrogates, long strings, whitespace, CRs,
// blank lines and torn tails, then mutated byte by byte.
func TestScanRestOpensAsLineByLine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		content := genMixedSession(t)
		opts := Options{
			Strict:          rapid.Bool().Draw(t, "strict"),
			RepairHoledTail: rapid.Bool().Draw(t, "repair holed tail"),
			generalOnly:     rapid.Bool().Draw(t, "general only"),
		}
		got := fullOutcome(t, content, opts)
		opts.lineByLine, opts.noMemo = true, true
		if want := fullOutcome(t, content, opts); got != want {
			t.Fatalf("file %q:\nscanRest and memo:\n%s\nline by line, no memo:\n%s", content, got, want)
		}
	})
}

// fullOutcome describes everything Open made of content: the error (its
// line included), or every write with its entry or usage row, each entry's
// kind, the stats, next seq and dead bytes; and the file Open left.
func fullOutcome(t *rapid.T, content string, opts Options) string {
	m := newMemFS()
	m.put(path, []byte(content))
	var out strings.Builder
	s, err := Open(testEnv(m), path, opts)
	if err != nil {
		var se *StorageError
		line := 0
		if errors.As(err, &se) {
			line = se.Line
		}
		fmt.Fprintf(&out, "error at line %d: %v: %v\n", line, err, errors.Unwrap(err))
	} else {
		for _, w := range s.state.Snapshot() {
			fmt.Fprintf(&out, "%d %d %s %s %q %q %s", w.Seq, w.Timestamp, w.Kind, w.Op, w.Namespace, w.Key, w.Value)
			if e := w.Entry; e != nil {
				parent := "<nil>"
				if e.ParentID != nil {
					parent = fmt.Sprintf("%q", *e.ParentID)
				}
				_, kind, _ := s.state.GetEntryKind(e.ID)
				fmt.Fprintf(&out, " entry %q %s %s %+v", e.ID, parent, e.Raw, kind)
			}
			if u := w.Usage; u != nil {
				fmt.Fprintf(&out, " usage %q %s", u.ID, u.Raw)
			}
			out.WriteByte('\n')
		}
		dead, total := s.DeadBytes()
		fmt.Fprintf(&out, "stats %+v next %d dead %d of %d\n", s.state.GetStats(), s.state.NextSeq(), dead, total)
		_ = s.Close()
	}
	fmt.Fprintf(&out, "file %q", m.content(path))
	return out.String()
}

// genMixedSession is a header and lines of entry, usage, value and list
// records, alone or in arrays, then mutations.
func genMixedSession(t *rapid.T) string {
	var b strings.Builder
	b.WriteString(hdr)
	n := rapid.IntRange(0, 12).Draw(t, "lines")
	seq, last := 0, "null"
	for range n {
		if rapid.IntRange(0, 15).Draw(t, "blank") == 0 {
			b.WriteString(rapid.SampledFrom([]string{"", " ", "\r", "\t "}).Draw(t, "blank line"))
		} else {
			b.WriteString(genLine(t, &seq, &last))
		}
		if rapid.IntRange(0, 7).Draw(t, "crlf") == 0 {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	bs := []byte(b.String())
	mutations := 0
	if rapid.Bool().Draw(t, "mutated") {
		mutations = rapid.IntRange(1, 3).Draw(t, "mutations")
	}
	// the header is left whole, mostly: what is under test is the lines
	from := len(hdr)
	if rapid.IntRange(0, 9).Draw(t, "header too") == 0 {
		from = 0
	}
	for range mutations {
		bs = mutate(t, bs, from)
	}
	if len(bs) > from && rapid.IntRange(0, 5).Draw(t, "tear") == 0 {
		bs = bs[:rapid.IntRange(from, len(bs)).Draw(t, "torn at")]
	}
	return string(bs)
}

// genLine is one line of 1-4 records (an array, or a lone object).
func genLine(t *rapid.T, seq *int, last *string) string {
	k := rapid.IntRange(1, 4).Draw(t, "records")
	recs := make([]string, k)
	for i := range recs {
		*seq += rapid.SampledFrom([]int{1, 1, 1, 1, 1, 1, 1, 0, 2}).Draw(t, "seq step")
		recs[i] = genRecord(t, *seq, last)
	}
	sep := rapid.SampledFrom([]string{",", ",", " , ", ",\t"}).Draw(t, "sep")
	if k == 1 && rapid.Bool().Draw(t, "lone") {
		return recs[0]
	}
	return "[" + strings.Join(recs, sep) + "]"
}

// genRecord is one record; last is the id of the entry before, null for
// none.
func genRecord(t *rapid.T, seq int, last *string) string {
	// ids are mostly fresh and parents mostly the entry before, so that
	// most unmutated files open
	odd := func(label, usual string) string {
		if rapid.IntRange(0, 19).Draw(t, label+" odd") == 0 {
			return rapid.SampledFrom([]string{`"e1"`, `"e1\u0000"`, "7", "null", `{"a":1}`}).Draw(t, label)
		}
		return usual
	}
	var fields []string
	switch rapid.IntRange(0, 4).Draw(t, "kind") {
	case 0, 1:
		parent := odd("parentId", *last)
		*last = odd("id", fmt.Sprintf(`"e%d"`, seq))
		typ := rapid.SampledFrom([]string{`"message"`, `"custom"`, `"x\u00e9"`, `"compaction"`}).Draw(t, "type")
		fields = []string{`"seq":` + fmt.Sprint(seq), `"kind":"entry"`, `"timestamp":1650000000000`,
			`"id":` + *last, `"parentId":` + parent, `"type":` + typ,
			`"message":` + genMessage(t)}
	case 2:
		fields = []string{`"seq":` + fmt.Sprint(seq), `"kind":"usage"`, `"id":"u` + fmt.Sprint(seq) + `"`,
			`"entryId":` + *last, `"adjustment":false`, `"usage":{"input":1,"cost":{"total":0},"note":` + genText(t) + `}`}
	case 3:
		fields = []string{`"kind":"value"`, `"op":"set"`, `"seq":` + fmt.Sprint(seq),
			`"namespace":"ns"`, `"key":` + genText(t), `"value":{"v":` + genText(t) + `}`}
	default:
		fields = []string{`"kind":"list"`, `"op":"append"`, `"seq":` + fmt.Sprint(seq),
			`"namespace":"l"`, `"key":"k"`, `"value":` + genText(t)}
	}
	if rapid.IntRange(0, 5).Draw(t, "shuffle") == 0 {
		perm := rapid.Permutation(fields).Draw(t, "order")
		fields = perm
	}
	sep := rapid.SampledFrom([]string{",", ",", ", ", " ,"}).Draw(t, "member sep")
	return "{" + strings.Join(fields, sep) + "}"
}

// genMessage is a message object, most alike up to their text, which is
// where the scanner's memo resumes: the roles, an escape, whitespace or a
// nesting vary the prefix.
func genMessage(t *rapid.T) string {
	role := rapid.SampledFrom([]string{`"user"`, `"user"`, `"assistant"`, `"us\u0065r"`}).Draw(t, "role")
	colon := rapid.SampledFrom([]string{":", ":", ":", ": "}).Draw(t, "colon")
	content := `[{"type":"text","text"` + colon + genText(t) + `}]`
	if rapid.IntRange(0, 5).Draw(t, "nested") == 0 {
		content = `[[{"type":"text","text":` + genText(t) + `}],` + genText(t) + `]`
	}
	return `{"role":` + role + `,"content"` + colon + content + `,"timestamp":1}`
}

// genText is a JSON string literal of pieces: ASCII, valid and invalid
// UTF-8, escapes (lone surrogates among them) and long runs.
func genText(t *rapid.T) string {
	pieces := []string{"x", "hello ", "é", "😀", "\xff", "\xc3", "\xed\xa0\x80", "\xef\xbf\xbd", "\x80abc",
		`\n`, `\"`, `\\`, `\ud800`, `\udc00x`, `\u00e9`, "\x7f", `\t`, strings.Repeat("y", 40),
		strings.Repeat("z", 300) + "é", strings.Repeat("w", 5000)}
	var b strings.Builder
	b.WriteByte('"')
	for range rapid.IntRange(0, 6).Draw(t, "pieces") {
		b.WriteString(rapid.SampledFrom(pieces).Draw(t, "piece"))
	}
	b.WriteByte('"')
	return b.String()
}

// mutate inserts, replaces or deletes one byte from bs[from:].
func mutate(t *rapid.T, bs []byte, from int) []byte {
	if len(bs) <= from {
		return bs
	}
	at := rapid.IntRange(from, len(bs)-1).Draw(t, "at")
	if rapid.Bool().Draw(t, "at a token") {
		// at or after a bracket, comma, colon or newline: where a newline
		// splits a line in two, or a byte follows a line's value
		var tokens []int
		for i := from; i < len(bs); i++ {
			if strings.IndexByte("{}[],:\n", bs[i]) >= 0 {
				tokens = append(tokens, i, i+1)
			}
		}
		if len(tokens) > 0 {
			at = min(rapid.SampledFrom(tokens).Draw(t, "token"), len(bs)-1)
		}
	}
	c := rapid.SampledFrom([]byte("\n\r \"\\{}[],:a0\xff\x80\xc3\x00\t")).Draw(t, "byte")
	switch rapid.IntRange(0, 2).Draw(t, "how") {
	case 0:
		return append(bs[:at:at], append([]byte{c}, bs[at:]...)...)
	case 1:
		out := append([]byte(nil), bs...)
		out[at] = c
		return out
	default:
		return append(bs[:at:at], bs[at+1:]...)
	}
}

// The generator reaches what the test is for: files that open, lines that
// fail, and lines with invalid UTF-8 or a CR.
func TestMixedSessionsCoverOutcomes(t *testing.T) {
	var opened, failed, invalid, crlf int
	rapid.Check(t, func(t *rapid.T) {
		content := genMixedSession(t)
		if strings.HasPrefix(fullOutcome(t, content, Options{}), "error") {
			failed++
		} else {
			opened++
		}
		if !utf8Valid(content) {
			invalid++
		}
		if strings.Contains(content, "\r\n") {
			crlf++
		}
	})
	if opened == 0 || failed == 0 || invalid == 0 || crlf == 0 {
		t.Fatalf("opened %d, failed %d, invalid UTF-8 %d, CRLF %d", opened, failed, invalid, crlf)
	}
}

func utf8Valid(s string) bool { return store.NodeText([]byte(s)) == s }

// Lines the scan accepts whole, valid UTF-8, take the folded path, with a
// CR, whitespace or multibyte text as well; a line of invalid UTF-8 or one
// is left to the line-by-line path, and the lines after it are scanned
// again.
func TestScanRestTakesCleanLines(t *testing.T) {
	entry := func(seq int, text string) string {
		parent := "null"
		if seq > 1 {
			parent = fmt.Sprintf(`"e%d"`, seq-1)
		}
		return fmt.Sprintf(`{"seq":%d,"kind":"entry","timestamp":1,"id":"e%d","parentId":%s,"type":"message","text":"%s"}`,
			seq, seq, parent, text)
	}
	clean := hdr + "[" + entry(1, "a") + "," + entry(2, strings.Repeat("é😀", 100)) + "]\n" +
		entry(3, "b") + " \r\n" + entry(4, `\ud800`) + "\n"
	for _, c := range []struct {
		name    string
		content string
		scanned int
	}{
		{"clean", clean, 3},
		{"invalid UTF-8", clean + entry(5, "\xff") + "\n" + entry(6, "c") + "\n", 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newMemFS()
			m.put(path, []byte(c.content))
			s, err := Open(testEnv(m), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.scannedLines != c.scanned {
				t.Fatalf("%d lines scanned, want %d", s.scannedLines, c.scanned)
			}
		})
	}
}
