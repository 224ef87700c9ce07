package jsonlpi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// checksEnv sets the number of files each property opens in both
// implementations. CI runs the default (200 per property, a few seconds);
// FRAMEPROOF_JSONLPI_CHECKS=20000 is the larger budget (a few minutes).
const checksEnv = "FRAMEPROOF_JSONLPI_CHECKS"

func checks() int {
	if n, err := strconv.Atoi(os.Getenv(checksEnv)); err == nil && n > 0 {
		return n
	}
	return 200
}

var (
	genNamespaces = []string{"a", "pi.op.state", "pi.pending.assistant_frame", "\u00e9", "\U0001F600"}
	genKeys       = []string{"", "k", "op:r", "\u2028", `a"b`, `\`, "\U0001F600"}
	genValues     = []string{`1`, `-0`, `0.1`, `1.5e300`, `-12`, `12345678901234567890`, `true`, `null`, `""`, `"x"`,
		`"<&>"`, `"\u2028"`, `"\ud83d"`, `"😀"`, `"a\"b\\c"`, `"\u0000"`, `[]`, `{}`, `[1,"two",{"three":3}]`,
		`{"b":1,"a":[true,null],"2":"x","1":"y"}`, `{"role":"assistant","content":[{"type":"text","text":"hi"}]}`}
	genTypes = []string{"message", "custom", "compaction", "model_change"}
)

// session draws a sequence of commits and writes them with frameproof's
// JSONL writer; it returns the file's bytes and the namespaces written.
func session(t *rapid.T, path string) []byte {
	s, err := jsonl.Create(env.Production(), path, jsonl.Header{ID: "s-" + rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, "id"), CreatedAt: rapid.Int64Range(0, 1<<45).Draw(t, "createdAt"), Cwd: rapid.SampledFrom([]string{"/", "/w", "/tmp/é"}).Draw(t, "cwd")}, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	var entries []string
	n := 0
	for range rapid.IntRange(0, 10).Draw(t, "commits") {
		var ws []store.Write
		for range rapid.IntRange(0, 4).Draw(t, "writes") {
			n++
			addr := store.Address{Namespace: rapid.SampledFrom(genNamespaces).Draw(t, "ns"), Key: rapid.SampledFrom(genKeys).Draw(t, "key")}
			value := json.RawMessage(rapid.SampledFrom(genValues).Draw(t, "value"))
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0, 1:
				id := fmt.Sprintf("e%d", n)
				parent, pj := (*string)(nil), "null"
				if len(entries) > 0 && rapid.Bool().Draw(t, "hasParent") {
					p := rapid.SampledFrom(entries).Draw(t, "parent")
					parent, pj = &p, strconv.Quote(p)
				}
				typ := rapid.SampledFrom(genTypes).Draw(t, "type")
				raw := `{"type":"` + typ + `","id":"` + id + `","parentId":` + pj
				if typ == "custom" {
					raw += `,"customType":"c` + strconv.Itoa(n%3) + `","data":` + string(value)
				} else {
					raw += `,"message":` + string(value)
				}
				ws = append(ws, store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw + "}")}))
				entries = append(entries, id)
			case 2:
				in, out := rapid.IntRange(0, 5000).Draw(t, "in"), rapid.IntRange(0, 5000).Draw(t, "out")
				raw := fmt.Sprintf(`{"id":"u%d","usage":{"input":%d,"output":%d,"cacheRead":0,"cacheWrite":1,"totalTokens":%d,"cost":{"input":%g,"output":%g,"cacheRead":0,"cacheWrite":0,"total":%g}},"adjustment":%t}`,
					n, in, out, in+out+1, float64(in)/1e6, float64(out)*3/1e6, float64(in+3*out)/1e6, rapid.Bool().Draw(t, "adjustment"))
				ws = append(ws, store.InsertUsage(store.UsageRow{ID: fmt.Sprintf("u%d", n), Raw: json.RawMessage(raw)}))
			case 3, 4:
				ws = append(ws, store.SetValueRaw(addr, value))
			case 5:
				ws = append(ws, store.DeleteValueRaw(addr))
			case 6, 7, 8:
				ws = append(ws, store.AppendListRaw(addr, value))
			default:
				ws = append(ws, store.DeleteListRaw(addr))
			}
		}
		if _, err := s.Commit(ws); err != nil {
			t.Fatalf("frameproof refused its own generated commit: %v", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return b
}

// mutations: how a valid file is damaged.
var mutations = []string{"none", "torn tail", "flip a bit", "drop a byte", "insert a byte", "drop a colon", "drop a quote", "cut a number short"}

func indexes(b []byte, pred func(byte) bool) []int {
	var out []int
	for i, c := range b {
		if pred(c) {
			out = append(out, i)
		}
	}
	return out
}

func mutate(t *rapid.T, b []byte) []byte {
	b = bytes.Clone(b)
	pick := func(xs []int, label string) (int, bool) {
		if len(xs) == 0 {
			return 0, false
		}
		return rapid.SampledFrom(xs).Draw(t, label), true
	}
	drop := func(i int) []byte { return append(b[:i:i], b[i+1:]...) }
	switch m := rapid.SampledFrom(mutations).Draw(t, "mutation"); m {
	case "torn tail":
		return b[:rapid.IntRange(0, len(b)-1).Draw(t, "cut")]
	case "flip a bit":
		i := rapid.IntRange(0, len(b)-1).Draw(t, "at")
		b[i] ^= 1 << rapid.IntRange(0, 7).Draw(t, "bit")
	case "drop a byte":
		return drop(rapid.IntRange(0, len(b)-1).Draw(t, "at"))
	case "insert a byte":
		i := rapid.IntRange(0, len(b)).Draw(t, "at")
		c := rapid.SampledFrom([]byte("{}[]\",:0-9 \n\x00a\\\xc3")).Draw(t, "byte")
		return append(b[:i:i], append([]byte{c}, b[i:]...)...)
	case "drop a colon", "drop a quote":
		want := byte(':')
		if m == "drop a quote" {
			want = '"'
		}
		if i, ok := pick(indexes(b, func(c byte) bool { return c == want }), "which"); ok {
			return drop(i)
		}
	case "cut a number short":
		// the end of a digit run: the run is cut back by 1 or more digits
		var ends []int
		for i := range b {
			if b[i] >= '0' && b[i] <= '9' && (i+1 == len(b) || b[i+1] < '0' || b[i+1] > '9') {
				ends = append(ends, i)
			}
		}
		if e, ok := pick(ends, "number"); ok {
			s := e
			for s > 0 && b[s-1] >= '0' && b[s-1] <= '9' {
				s--
			}
			k := rapid.IntRange(s, e).Draw(t, "keep")
			return append(b[:k:k], b[e+1:]...)
		}
	}
	return b
}

// TestFrameproofSessionsOpenAlikeInPi: every file frameproof's writer
// produces, and every damaged copy of one (see mutations), opens in pi's
// JsonlStorage with the state frameproof's open gives it, or both refuse
// it (with pi's message where frameproof claims pi's). Budget: checksEnv.
func TestFrameproofSessionsOpenAlikeInPi(t *testing.T) {
	o := startOpener(t)
	dir := t.TempDir()
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", n))
		content := mutate(t, session(t, path))
		diff, err := compare(o, path, content, genNamespaces)
		if err != nil {
			t.Fatalf("%v", err)
		}
		if diff != "" {
			t.Fatalf("file %q:\n%s", content, diff)
		}
	})
}

// TestMain sets rapid's checks from checksEnv unless -rapid.checks (or
// RAPID_CHECKS) chose them, and writes no fail files.
func TestMain(m *testing.M) {
	flag.Parse()
	given := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if !given {
		_ = flag.Set("rapid.checks", strconv.Itoa(checks()))
	}
	// A failure prints its -rapid.seed; no fail file in the source tree.
	_ = flag.Set("rapid.nofailfile", "true")
	os.Exit(m.Run())
}
