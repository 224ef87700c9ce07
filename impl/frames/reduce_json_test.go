package frames

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// general is ApplyJSON without its fast path: pi.ParseJSON, then Apply.
func general(r *ValueReducer, frame []byte) error {
	v, err := pi.ParseJSON(string(frame))
	if err != nil {
		return err
	}
	return r.Apply(v)
}

// outcome reduces lines one way and describes the result: the message's
// JSON, or the first error and the line it came from.
func outcome(lines [][]byte, apply func(*ValueReducer, []byte) error) string {
	r := NewValueReducer()
	for i, l := range lines {
		if err := apply(r, l); err != nil {
			return sprintf("line %d: error %q", i, err.Error())
		}
	}
	m, err := r.Finish()
	switch {
	case err != nil:
		return sprintf("finish: error %q", err.Error())
	case m.IsUndefined():
		return "undefined"
	}
	return string(m.AppendJSON(nil))
}

// reduceJSONOutcome is outcome for ReduceJSON, whose runs of delta frames
// skip ApplyJSON.
func reduceJSONOutcome(lines [][]byte) string {
	m, err := ReduceJSON(lines)
	switch {
	case err != nil:
		// outcome names the line; ReduceJSON does not, so find it.
		return outcomeOfError(lines, err)
	case m.IsUndefined():
		return "undefined"
	}
	return string(m.AppendJSON(nil))
}

// outcomeOfError is outcome's text for err: the line the general path
// failed at, when its error is err's.
func outcomeOfError(lines [][]byte, err error) string {
	r := NewValueReducer()
	for i, l := range lines {
		if gerr := general(r, l); gerr != nil {
			if gerr.Error() != err.Error() {
				break
			}
			return sprintf("line %d: error %q", i, err.Error())
		}
	}
	if _, ferr := r.Finish(); ferr != nil && ferr.Error() == err.Error() {
		return sprintf("finish: error %q", err.Error())
	}
	return sprintf("error %q (not the general path's)", err.Error())
}

// fastShape reports whether a stored frame is a delta frame in the fast
// shape, envelope and literal.
func fastShape(frame []byte) bool {
	d, ok := parseDeltaFrame(frame)
	return ok && validLiteral(d.raw)
}

const testPartial = `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`

// genStoredLines is a stored frame log near the fast shape: a start frame
// (mostly first), one block of each kind, then delta frames whose type,
// index, delta and envelope are drawn from the fast shape and from shapes
// that miss it by little (escaped or duplicate keys, extra members,
// whitespace, 1.0 / -0 / 1e0 indexes, \u escapes and lone surrogates,
// bytes that are not UTF-8, non-string deltas, broken JSON), with
// the odd end or unknown frame between them.
func genStoredLines(t *rapid.T) [][]byte {
	starts := []string{
		`{"type":"start","partial":` + testPartial + `}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`,
		`{"type":"thinking_start","contentIndex":1,"content":{"type":"thinking","thinking":"t"}}`,
		`{"type":"toolcall_start","contentIndex":2,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`,
		`{"type":"text_start","contentIndex":3,"content":{"type":"text"}}`,
	}
	var lines [][]byte
	skip := -1
	if rapid.IntRange(0, 9).Draw(t, "skipStart") == 0 {
		skip = rapid.IntRange(0, len(starts)-1).Draw(t, "skip")
	}
	for i, s := range starts {
		if i != skip {
			lines = append(lines, []byte(s))
		}
	}
	// odd: how rare the near misses are in this list (1 in odd frames or
	// members), so that many lists reduce to a message and some do not.
	odd := rapid.IntRange(1, 40).Draw(t, "odd")
	rare := func(label string) bool { return rapid.IntRange(0, odd-1).Draw(t, label) == 0 }
	for n := rapid.IntRange(0, 30).Draw(t, "frames"); n > 0; n-- {
		lines = append(lines, []byte(genLine(t, rare)))
	}
	if rapid.IntRange(0, 9).Draw(t, "lateStart") == 0 {
		at := rapid.IntRange(0, len(lines)).Draw(t, "at")
		lines = append(lines[:at:at], append([][]byte{[]byte(starts[0])}, lines[at:]...)...)
	}
	return lines
}

func genLine(t *rapid.T, rare func(string) bool) string {
	if rare("other") {
		return rapid.SampledFrom([]string{
			`{"type":"text_end","contentIndex":0,"content":"done"}`,
			`{"type":"thinking_end","contentIndex":1,"content":"t","redacted":true}`,
			`{"type":"toolcall_checkpoint","contentIndex":2,"json":"{\"a\":"}`,
			`{"type":"toolcall_end","contentIndex":2,"id":"i","name":"n","arguments":{"a":1}}`,
			`{"type":"citation","contentIndex":0,"delta":"x"}`,
			`{"type":"start","partial":` + testPartial + `}`,
			`null`, `7`, `"text_delta"`, ``, `{"type":"text_delta","contentIndex":0,"delta":"x"`,
		}).Draw(t, "other")
	}
	typ := rapid.SampledFrom([]string{"text_delta", "thinking_delta", "toolcall_delta", "text_delta"}).Draw(t, "type")
	if rare("oddType") {
		typ = rapid.SampledFrom([]string{"Text_delta", "text_deltas", "text_delt", "thinking_start"}).Draw(t, "type")
	}
	// Mostly the index of a block of the delta's kind, so that most lists
	// reduce to a message and the deltas' text is compared.
	index, ok := map[string]string{"text_delta": "0", "thinking_delta": "1", "toolcall_delta": "2"}[typ]
	if !ok {
		index = "0"
	}
	if rare("oddIndex") {
		index = genOddIndex(t)
	} else if rare("otherIndex") {
		index = rapid.SampledFrom([]string{"0", "1", "2", "3", "4"}).Draw(t, "anyIndex")
	} else if typ == "text_delta" && rapid.Bool().Draw(t, "secondText") {
		index = "3"
	}
	delta := genDelta(t, rare)
	members := []string{`"type":"` + typ + `"`, `"contentIndex":` + index, `"delta":` + delta}
	if !rare("envelope") {
		return "{" + strings.Join(members, ",") + "}"
	}
	switch rapid.IntRange(0, 12).Draw(t, "envelope") {
	case 1:
		members[0] = `"typ\u0065":"` + typ + `"`
	case 2:
		members[2] = `"d\u0065lta":` + delta
	case 3:
		members = append(members, `"delta":"dup"`)
	case 4:
		members = append(members, `"contentIndex":1`)
	case 5:
		members = append(members, `"x":1`)
	case 6:
		members[0], members[2] = members[2], members[0]
	case 7:
		members = members[:2]
	case 8:
		return "{ " + strings.Join(members, ",") + "}"
	case 9:
		return "{" + strings.Join(members, ", ") + "}\n"
	case 10:
		return "{" + strings.Join(members, ",") + "} "
	case 11:
		return "{" + strings.Join(members, ",")
	case 12:
		members[1] = `"contentIndex" :` + index
	}
	return "{" + strings.Join(members, ",") + "}"
}

func genOddIndex(t *rapid.T) string {
	return rapid.SampledFrom([]string{"00", "01", "-0", "1.0", "1e0", "0e5", "0.5", "-1", "1E0", "0.0",
		"9007199254740991", "9007199254740993", "123456789012345", "1234567890123456", `"0"`, "null"}).Draw(t, "index")
}

func genDelta(t *rapid.T, rare func(string) bool) string {
	if rare("nonString") {
		return rapid.SampledFrom([]string{"1", "null", "true", "{}", "[]", "-0", `{"a":1}`}).Draw(t, "value")
	}
	good := []string{"abc", "é", "\uFFFD", "😀", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`}
	if !rare("badDelta") {
		return `"` + strings.Join(rapid.SliceOfN(rapid.SampledFrom(good), 0, 6).Draw(t, "pieces"), "") + `"`
	}
	pieces := rapid.SliceOfN(rapid.SampledFrom([]string{
		"abc", "é", "\uFFFD", "😀", `\"`, `\\`, `\/`, `\n`, `\t`, `\b`, `\f`, `\r`,
		`\u0041`, `\ud83d`, `\ude00`, `\uD83D\uDE00`, "\xed\xa0\xbd", "\xed\xb8\x80", "\xff", "\xc3", "\x01", `\x`, `\`, "\t",
	}), 0, 6).Draw(t, "pieces")
	return `"` + strings.Join(pieces, "") + `"`
}

// ApplyJSON's fast path gives what the general path gives: the same
// message bytes, or the same error at the same line.
func TestApplyJSONFastPathMatchesGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lines := genStoredLines(t)
		got := outcome(lines, (*ValueReducer).ApplyJSON)
		want := outcome(lines, general)
		if got != want {
			t.Fatalf("fast path %s\ngeneral path %s\nlines:\n%s", got, want, joinLines(lines))
		}
		if runs := reduceJSONOutcome(lines); runs != want {
			t.Fatalf("ReduceJSON %s\ngeneral path %s\nlines:\n%s", runs, want, joinLines(lines))
		}
	})
}

// Some stored lists reduce to a message (the generator aims near one in
// six), most do not, and their lines take both paths often.
func TestStoredLinesReachBothPaths(t *testing.T) {
	fast, total := 0, 0
	logs := sample(genStoredLines, 200)
	for _, lines := range logs {
		fast += count(lines, fastShape)
		total += len(lines)
	}
	messages := count(logs, func(lines [][]byte) bool { return strings.HasPrefix(outcome(lines, general), "{") })
	requireShare(t, "lists that reduce to a message", messages, len(logs), 1, 10)
	requireShare(t, "lists that do not", len(logs)-messages, len(logs), 1, 2)
	requireShare(t, "lines on the fast path", fast, total, 1, 10)
	requireShare(t, "lines on the general path", total-fast, total, 1, 10)
}

// The fast path accepts exactly the encoder's delta frames: every delta
// frame AppendFrame writes for the benchmark stream takes it.
func TestAppendFrameDeltasTakeFastPath(t *testing.T) {
	enc := NewEncoder()
	deltas := 0
	for _, ev := range benchStream(4 << 10) {
		out, framed, err := enc.AppendFrame(nil, ev)
		if err != nil || !framed {
			continue
		}
		ok := fastShape(out)
		if isDelta := strings.Contains(string(out), `_delta"`); ok != isDelta {
			t.Fatalf("fast path %v for %s", ok, out)
		}
		if ok {
			deltas++
		}
	}
	if deltas == 0 {
		t.Fatal("no delta frames in the stream")
	}
}

// Steady state: a delta frame appended to a block costs no allocation.
func TestApplyJSONDeltaAllocs(t *testing.T) {
	r := NewValueReducer()
	for _, l := range []string{`{"type":"start","partial":` + testPartial + `}`, `{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`} {
		if err := r.ApplyJSON([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	plain, escaped := []byte(`{"type":"text_delta","contentIndex":0,"delta":"abc é"}`), []byte(`{"type":"text_delta","contentIndex":0,"delta":"a\"b\n"}`)
	for i := 0; i < 1<<16; i++ { // grow the text buffer first
		_ = r.ApplyJSON(plain)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if r.ApplyJSON(plain) != nil || r.ApplyJSON(escaped) != nil {
			t.Fatal("delta failed")
		}
	})
	if allocs > 0.01 {
		t.Fatalf("%.2f allocations per two delta frames", allocs)
	}
}

func joinLines(lines [][]byte) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(pi.Normalize(string(l)))
		b.WriteByte('\n')
	}
	return b.String()
}

// Any stored frame log (one frame per line) reduces to the same message or
// error through ApplyJSON as through pi.ParseJSON and Apply.
func FuzzApplyJSON(f *testing.F) {
	f.Add(`{"type":"start","partial":` + testPartial + `}
{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}
{"type":"text_delta","contentIndex":0,"delta":"a\"b\u0041é"}
{"type":"text_delta","contentIndex":0,"delta":"\ud83d"}
{"type":"text_delta","contentIndex":0,"delta":"\ude00"}
{"type":"text_delta","contentIndex":1.0,"delta":"x"}`)
	f.Add(`{"type":"start","partial":` + testPartial + `}
{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall"}}
{"type":"toolcall_delta","contentIndex":0,"delta":"{\"a\":"}
{"type":"toolcall_delta","contentIndex":0,"delta":"1","delta":"2"}
{"typ\u0065":"toolcall_delta","contentIndex":0,"delta":"3"}`)
	f.Add(`{"type":"text_delta","contentIndex":0,"delta":"before start"}
{"type":"start","partial":` + testPartial + `}
{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking"}}
{"type":"thinking_delta","contentIndex":0,"delta":"x"}
{"type":"thinking_delta","contentIndex":-0,"delta":"\/"}`)
	f.Fuzz(func(t *testing.T, log string) {
		var lines [][]byte
		for _, l := range strings.Split(log, "\n") {
			lines = append(lines, []byte(l))
		}
		want := outcome(lines, general)
		if got := outcome(lines, (*ValueReducer).ApplyJSON); got != want {
			t.Fatalf("fast path %s\ngeneral path %s", got, want)
		}
		if got := reduceJSONOutcome(lines); got != want {
			t.Fatalf("ReduceJSON %s\ngeneral path %s", got, want)
		}
	})
}
