package frames

import (
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// JSON texts near JSON.stringify's own writing: members, numbers and
// strings that it writes so, and the ones that miss it by little
// (whitespace, repeated and index-like keys, __proto__, -0, 1.0, 1e21,
// digits past round-tripping, \u escapes, lone surrogates escaped or raw,
// \/, bytes that are not UTF-8, deep nesting).
var (
	jsonNumbers = []string{"0", "1", "-1", "42", "1.5", "0.1", "-2.25", "123456789012345", "1e+21", "1e-7", "5e-324",
		"0.30000000000000004", "1.7976931348623157e+308", "9007199254740993",
		"-0", "1.0", "1e21", "1E+21", "1e0", "0.10", "00", "01", "12345678901234567890", "1e400", "-", "1.", ".5", "1e", "0x10"}
	jsonStrings = []string{`""`, `"a"`, `"pending"`, `"é"`, `"😀"`, `"a\"b"`, `"\\"`, `"\n\t\b\f\r"`, "\"\x7f\"",
		`"\/"`, `"\u0041"`, `"\u001f"`, `"\ud83d"`, `"\ud83d\ude00"`, "\"\xed\xa0\xbd\"", "\"\xff\"", "\"\x01\"", `"a`, `"\"`}
	jsonKeys = []string{"role", "api", "provider", "model", "usage", "stopReason", "timestamp", "errorMessage", "x",
		"é", `a\"b`, "0", "1", "10", "4294967295", "__proto__", `cont\u0065nt`, "content", "Content"}
)

// genJSONText is a JSON text (or a near miss) of depth at most depth.
func genJSONText(t *rapid.T, depth int, rare func(string) bool) string {
	kind := rapid.IntRange(0, 6).Draw(t, "kind")
	if depth == 0 && kind >= 4 {
		kind = 0
	}
	var s string
	switch kind {
	case 0:
		s = rapid.SampledFrom(jsonNumbers[:14]).Draw(t, "number")
		if rare("oddNumber") {
			s = rapid.SampledFrom(jsonNumbers).Draw(t, "oddNumber")
		}
	case 1:
		s = rapid.SampledFrom(jsonStrings[:9]).Draw(t, "string")
		if rare("oddString") {
			s = rapid.SampledFrom(jsonStrings).Draw(t, "oddString")
		}
	case 2:
		s = rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "literal")
		if rare("oddLiteral") {
			s = rapid.SampledFrom([]string{"tru", "nul", "True", "undefined"}).Draw(t, "oddLiteral")
		}
	case 3:
		if rare("deep") {
			s = strings.Repeat("[", maxRawDepth) + "1" + strings.Repeat("]", maxRawDepth)
			break
		}
		s = rapid.SampledFrom([]string{"[]", "{}"}).Draw(t, "empty")
	case 4:
		n := rapid.IntRange(1, 3).Draw(t, "elements")
		var elems []string
		for i := 0; i < n; i++ {
			elems = append(elems, genJSONText(t, depth-1, rare))
		}
		s = "[" + strings.Join(elems, genSep(t, rare)) + "]"
	default:
		s = genJSONObject(t, depth-1, rare, nil)
	}
	return s
}

func genSep(t *rapid.T, rare func(string) bool) string {
	if rare("space") {
		return rapid.SampledFrom([]string{", ", " ,", ",\n"}).Draw(t, "sep")
	}
	return ","
}

// genJSONObject is an object of some members drawn from jsonKeys (mostly
// the plain ones) and then the given ones.
func genJSONObject(t *rapid.T, depth int, rare func(string) bool, members []string) string {
	var out []string
	for n := rapid.IntRange(0, 3).Draw(t, "members"); n > 0; n-- {
		k := rapid.SampledFrom(jsonKeys[:9]).Draw(t, "key")
		if rare("oddKey") {
			k = rapid.SampledFrom(jsonKeys).Draw(t, "oddKey")
		}
		colon := ":"
		if rare("colonSpace") {
			colon = " : "
		}
		out = append(out, `"`+k+`"`+colon+genJSONText(t, depth, rare))
	}
	for _, m := range members {
		at := rapid.IntRange(0, len(out)).Draw(t, "at")
		out = append(out[:at:at], append([]string{m}, out[at:]...)...)
	}
	return "{" + strings.Join(out, genSep(t, rare)) + "}"
}

// genCanonicalCandidate is a JSON text near JSON.stringify's writing, one
// rare departure from it in odd draws.
func genCanonicalCandidate(t *rapid.T) string {
	odd := rapid.IntRange(1, 30).Draw(t, "odd")
	return genJSONText(t, 3, func(label string) bool { return rapid.IntRange(0, odd-1).Draw(t, label) == 0 })
}

func canonicalWhole(text string) bool {
	n, ok := canonicalJSON([]byte(text), 0)
	return ok && n == len(text)
}

// canonicalJSON accepts only what JSON.stringify(JSON.parse(text)) writes
// back byte for byte.
func TestCanonicalJSONIsStringifyOwn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genCanonicalCandidate(t)
		if !canonicalWhole(text) {
			return
		}
		v, err := pi.ParseJSON(text)
		if err != nil {
			t.Fatalf("canonicalJSON accepts %q, which JSON.parse rejects: %v", text, err)
		}
		if back := string(v.AppendJSON(nil)); back != text {
			t.Fatalf("canonicalJSON accepts %q, which JSON.stringify writes back as %q", text, back)
		}
	})
}

// canonicalJSON accepts most of what JSON.stringify writes, and the
// generator reaches both answers.
func TestCanonicalCandidatesReachBothAnswers(t *testing.T) {
	texts := sample(genCanonicalCandidate, 200)
	accepted := count(texts, canonicalWhole)
	requireShare(t, "texts canonicalJSON accepts", accepted, len(texts), 1, 2)
	require.Less(t, accepted, len(texts), "every text accepted")
}

// A start frame's partial: mostly the encoder's (content `[]` among other
// members, canonical), or content that is not `[]`, missing or repeated,
// or members and values that are not canonical.
func genPartial(t *rapid.T, rare func(string) bool) string {
	content := `"content":[]`
	if rare("oddContent") {
		content = rapid.SampledFrom([]string{`"content":[{"type":"text","text":"x"}]`, `"content":{}`, `"content":null`,
			`"content":""`, `"content": []`, `"content":[ ]`, `"cont\u0065nt":[]`, `"content":[],"content":[]`, `"Content":[]`}).Draw(t, "content")
	}
	if rare("testPartial") {
		return testPartial
	}
	return genJSONObject(t, 2, rare, []string{`"role":"assistant"`, content})
}

// genStartLog is a frame log whose start and block start frames are drawn
// near the encoder's shape: the partial (genPartial), the frame's
// envelope (whitespace, extra or reordered members), a second start frame
// or frames before it; block starts with escapes, lone surrogates and
// non-ASCII in their text, signatures, reordered members, indexes out of
// order or not plain; then deltas and ends.
func genStartLog(t *rapid.T) [][]byte {
	// Half the lists are clean (nothing rare, and a block start first), so
	// that both byte-level readers are taken often
	// (TestStartLogsReachBothReaders).
	clean := rapid.Bool().Draw(t, "clean")
	odd := rapid.IntRange(1, 20).Draw(t, "odd")
	rare := func(label string) bool { return !clean && rapid.IntRange(0, odd-1).Draw(t, label) == 0 }
	start := `{"type":"start","partial":` + genPartial(t, rare) + `}`
	if rare("startEnvelope") {
		start = rapid.SampledFrom([]string{
			strings.Replace(start, `,"partial":`, `, "partial":`, 1),
			strings.TrimSuffix(start, "}") + `,"x":1}`,
			start + " ",
			`{"partial":` + strings.TrimPrefix(strings.TrimSuffix(start, "}"), `{"type":"start","partial":`) + `,"type":"start"}`,
			strings.Replace(start, `"start"`, `"st\u0061rt"`, 1),
		}).Draw(t, "startEnvelope")
	}
	var lines []string
	if rare("before") {
		lines = append(lines, `{"type":"text_delta","contentIndex":0,"delta":"x"}`)
	}
	lines = append(lines, start)
	texts := []string{``, `x`, `é`, `a\"b\n`, `\/`, `\u0041`, `\ud83d`, "\xed\xa0\xbd", "\xff", `😀`, "\x01"}
	next := 0
	first := true
	for n := rapid.IntRange(0, 12).Draw(t, "frames"); n > 0 || (clean && first); n-- {
		frame := rapid.IntRange(0, 3).Draw(t, "frame")
		if clean && first {
			frame = 0
		}
		first = false
		switch frame {
		case 0:
			kind := rapid.SampledFrom([]string{"text", "thinking"}).Draw(t, "kind")
			index := sprintf("%d", next)
			if rare("oddIndex") {
				index = rapid.SampledFrom([]string{"0", "1", "5", "01", "-0", "1.0", "9007199254740993", `"0"`}).Draw(t, "index")
			} else {
				next++
			}
			text := rapid.SampledFrom(texts[:4]).Draw(t, "text")
			if rare("oddText") {
				text = rapid.SampledFrom(texts).Draw(t, "oddText")
			}
			block := `{"type":"` + kind + `","` + kind + `":"` + text + `"}`
			if rare("oddBlock") {
				block = rapid.SampledFrom([]string{
					`{"type":"` + kind + `","` + kind + `":"` + text + `","` + kind + `Signature":"s"}`,
					`{"` + kind + `":"` + text + `","type":"` + kind + `"}`,
					`{"type":"` + kind + `"}`,
					`{"type":"toolCall","` + kind + `":""}`,
					`{"type":"` + kind + `","` + kind + `":1}`,
					`{"type":"` + kind + `", "` + kind + `":""}`,
				}).Draw(t, "oddBlock")
			}
			line := `{"type":"` + kind + `_start","contentIndex":` + index + `,"content":` + block + `}`
			if rare("oddEnvelope") {
				line = strings.TrimSuffix(line, "}") + rapid.SampledFrom([]string{`,"x":1}`, `} `, `,"content":{}}`}).Draw(t, "oddEnvelope")
			}
			lines = append(lines, line)
		case 1:
			lines = append(lines, start)
		default:
			index := sprintf("%d", rapid.IntRange(0, max(0, next-1)).Draw(t, "deltaIndex"))
			kind := rapid.SampledFrom([]string{"text", "thinking"}).Draw(t, "deltaKind")
			lines = append(lines, `{"type":"`+kind+`_delta","contentIndex":`+index+`,"delta":"`+rapid.SampledFrom(texts).Draw(t, "delta")+`"}`)
		}
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

// AppendReducedJSON's byte-level start frames (rawStart) and block start
// frames (applyBlockStart) give what the general path gives, message bytes
// or error, and so do a StoredReducer that reduced other lists before, and
// ApplyJSON and ReduceJSON (which read block starts byte by byte too).
func TestStartFramesMatchGeneral(t *testing.T) {
	shared := new(StoredReducer) // its message object, blocks and map reused from list to list
	rapid.Check(t, func(t *rapid.T) {
		lines := genStartLog(t)
		want := exactOutcome(lines)
		if got := writeOutcome(lines); got != want {
			t.Fatalf("AppendReducedJSON %s\nexact path %s\nlines:\n%s", got, want, joinLines(lines))
		}
		for range 2 {
			if got := writeOutcomeWith(shared, lines); got != want {
				t.Fatalf("StoredReducer.AppendReducedJSON %s\nexact path %s\nlines:\n%s", got, want, joinLines(lines))
			}
		}
		wantLine := outcome(lines, general)
		if got := outcome(lines, (*ValueReducer).ApplyJSON); got != wantLine {
			t.Fatalf("ApplyJSON %s\ngeneral path %s\nlines:\n%s", got, wantLine, joinLines(lines))
		}
		if got := reduceJSONOutcome(lines); got != wantLine {
			t.Fatalf("ReduceJSON %s\ngeneral path %s\nlines:\n%s", got, wantLine, joinLines(lines))
		}
	})
}

// Start logs take both byte-level readers often: the start frame's
// (rawStart) and the block start's (applyBlockStart).
func TestStartLogsReachBothReaders(t *testing.T) {
	raw, blocks := 0, 0
	logs := sample(genStartLog, 200)
	for _, lines := range logs {
		for _, l := range lines {
			if _, _, ok := rawStart(l); ok {
				raw++
			}
			r := NewValueReducer()
			r.message = pi.ObjectValue(pi.NewObject())
			if done, _ := r.applyBlockStart(l); done {
				blocks++
			}
		}
	}
	requireShare(t, "raw start frames per list", raw, len(logs), 1, 2)
	requireShare(t, "byte-level block starts per list", blocks, len(logs), 1, 2)
}

// The encoder's own start and block start frames take the byte-level
// readers.
func TestEncoderStartFramesTakeByteLevelPath(t *testing.T) {
	enc := NewEncoder()
	var starts, blockStarts int
	r := NewValueReducer()
	r.bodies = true
	for _, ev := range benchStream(1 << 10) {
		out, framed, err := enc.AppendFrame(nil, ev)
		if err != nil || !framed {
			continue
		}
		switch {
		case strings.HasPrefix(string(out), `{"type":"start"`):
			if _, _, ok := rawStart(out); !ok {
				t.Fatalf("not read byte by byte: %s", out)
			}
			starts++
			if err := r.ApplyJSON(out); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(string(out), `{"type":"text_start"`):
			if done, err := r.applyBlockStart(out); !done || err != nil {
				t.Fatalf("not read byte by byte (%v): %s", err, out)
			}
			blockStarts++
		}
	}
	if starts != 1 || blockStarts != 1 {
		t.Fatalf("%d start frames, %d block starts", starts, blockStarts)
	}
}

// canonicalString's one pass finds the literal's end and judges its body
// as the two steps do: the first quote no backslash takes, then
// canonicalBody of what is before it.
func TestCanonicalStringMatchesTwoSteps(t *testing.T) {
	pieces := []string{"a", "abcdefgh", " ", "\x7f", `\"`, `\\`, `\n`, `\/`, `\u0041`, `\`, `"`, "é", "😀", "\xed\xa0\xbd", "\xff", "\xc3", "\x01"}
	rapid.Check(t, func(t *rapid.T) {
		b := []byte(`"`)
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 10).Draw(t, "pieces") {
			b = append(b, p...)
		}
		if rapid.Bool().Draw(t, "closed") {
			b = append(b, `"x`...)
		}
		if rapid.Bool().Draw(t, "padded") {
			// what follows a partial's strings: its short strings are
			// read by words when two words follow the quote
			b = append(b, `,"abcdefghijklmnop":1}`...)
		}
		wantN, wantOK := 0, false
		for i := 1; i < len(b); i++ {
			if b[i] == '\\' {
				i++
			} else if b[i] == '"' {
				wantN, wantOK = i+1, canonicalBody(b[1:i])
				break
			}
		}
		n, ok := canonicalString(b)
		if ok != wantOK || ok && n != wantN {
			t.Fatalf("canonicalString(%q) = %d, %v; two steps %d, %v", b, n, ok, wantN, wantOK)
		}
	})
}

// A stored line can be cut anywhere (a torn write, a file edited by hand):
// the start frame's canonical check must refuse every strict prefix of a
// container without reading past its end, and the reducers must answer
// every prefix without a panic. (The check once indexed b[i] after a
// member's ':' and after an array's '[' unguarded.)
func TestCanonicalJSONRefusesEveryTruncation(t *testing.T) {
	full := []string{
		`{"type":"start","partial":{"role":"assistant","content":[],"a":[1,2,[3]],"b":{"c":1,"d":[]},"e":"x"}}`,
		`[1,[2,{"a":3}],{}]`,
		`{"a":{"b":[0]}}`,
	}
	for _, in := range full {
		n, ok := canonicalJSON([]byte(in), 0)
		require.True(t, ok && n == len(in), "the whole of %s is canonical", in)
		for cut := 0; cut < len(in); cut++ {
			prefix := []byte(in[:cut])
			n, ok := canonicalJSON(prefix, 0)
			require.False(t, ok && n > 0 && (in[0] == '{' || in[0] == '['), "prefix %q accepted (%d)", prefix, n)
			require.NotPanics(t, func() {
				var s StoredReducer
				_, _, _ = s.AppendReducedJSON(nil, [][]byte{prefix})
				_, _ = ReduceJSON([][]byte{prefix})
			}, "prefix %q", prefix)
		}
	}
}

// plainDecimal accepts only decimals that AppendNumber writes back as they
// are (ParseFloat's reading, canonicalNumber's general path), and every
// decimal its rule names: no exponent, no trailing zero, at most 15
// significant digits, at most five zeros after the point below 1.
func TestPlainDecimalIsAppendNumberOwn(t *testing.T) {
	// The bounds, each side: five and six zeros after the point, 15 and 16
	// digits, a trailing zero, a leading zero, an exponent.
	for text, want := range map[string]bool{"0.000001": true, "0.0000001": false, "-0.00123": true, "412.5": true,
		"0.123456789012345": true, "0.8000000000000001": false, "12345678901234.5": true, "123456789012345.5": false,
		"0.10": false, "00.1": false, "1.5e3": false, "1.": false} {
		_, ok := plainDecimal([]byte(text), 0, strings.IndexByte(text, '.'))
		require.Equal(t, want, ok, text)
	}
	t.Run("every acceptance is AppendNumber's own", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			sign := rapid.SampledFrom([]string{"", "-"}).Draw(t, "sign")
			whole := rapid.SampledFrom([]string{"0", "00", "1" + decimalDigits(t, "whole", 0, 15)}).Draw(t, "int")
			frac := strings.Repeat("0", rapid.IntRange(0, 8).Draw(t, "zeros")) + decimalDigits(t, "frac", 0, 17)
			after := rapid.SampledFrom([]string{"", ",", "}", "e5", "E-3", "0"}).Draw(t, "after")
			text := sign + whole + "." + frac + after
			n, ok := plainDecimal([]byte(text), len(sign), len(sign)+len(whole))
			if ok {
				requireAppendNumberOwn(t, text, n)
			}
		})
	})
	t.Run("every decimal the rule names is accepted", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			sign := rapid.SampledFrom([]string{"", "-"}).Draw(t, "sign")
			whole, budget := "0", 15
			if rapid.Bool().Draw(t, "atLeastOne") {
				whole = rapid.SampledFrom([]string{"1", "5", "9"}).Draw(t, "lead") + decimalDigits(t, "whole", 0, 13)
				budget -= len(whole)
			}
			frac := decimalDigits(t, "frac", 0, budget-1) + rapid.SampledFrom([]string{"1", "4", "9"}).Draw(t, "last")
			if whole == "0" {
				frac = strings.Repeat("0", rapid.IntRange(0, 5).Draw(t, "zeros")) + strings.TrimLeft(frac, "0")
			}
			number := sign + whole + "." + frac
			text := number + rapid.SampledFrom([]string{"", ",", "}", "]"}).Draw(t, "after")
			n, ok := plainDecimal([]byte(text), len(sign), len(sign)+len(whole))
			if !ok || n != len(number) {
				t.Fatalf("plainDecimal refuses %q of %q (%d, %v)", number, text, n, ok)
			}
			requireAppendNumberOwn(t, text, n)
		})
	})
}

func decimalDigits(t *rapid.T, label string, lo, hi int) string {
	n := rapid.IntRange(lo, hi).Draw(t, label+"Len")
	return rapid.StringOfN(rapid.RuneFrom([]rune("0123456789")), n, n, -1).Draw(t, label)
}

// requireAppendNumberOwn fails unless text[:n] is what AppendNumber writes
// for the number ParseFloat reads from it.
func requireAppendNumberOwn(t *rapid.T, text string, n int) {
	f, err := strconv.ParseFloat(text[:n], 64)
	if err != nil {
		t.Fatalf("plainDecimal accepts %q of %q, which ParseFloat rejects: %v", text[:n], text, err)
	}
	if back := string(pi.AppendNumber(nil, f)); back != text[:n] {
		t.Fatalf("plainDecimal accepts %q of %q, which AppendNumber writes back as %q", text[:n], text, back)
	}
}
