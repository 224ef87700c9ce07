package frames

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"

	"pgregory.net/rapid"
)

// exactOutcome is the reference for AppendReducedJSON: pi.ParseJSON of
// each line and Apply (ReduceValues one frame at a time, which never keeps
// a JSON body), then the message's AppendJSON; or the first error.
func exactOutcome(lines [][]byte) string {
	r := NewValueReducer()
	for _, l := range lines {
		if err := general(r, l); err != nil {
			return sprintf("error %q", err.Error())
		}
	}
	m, err := r.Finish()
	switch {
	case err != nil:
		return sprintf("error %q", err.Error())
	case m.IsUndefined():
		return "undefined"
	}
	return string(m.AppendJSON(nil))
}

func writeOutcome(lines [][]byte) string {
	return writeOutcomeWith(new(StoredReducer), lines)
}

// writeOutcomeWith is writeOutcome through s, which may have reduced other
// lists before.
func writeOutcomeWith(s *StoredReducer, lines [][]byte) string {
	dst := []byte("kept:")
	out, defined, err := s.AppendReducedJSON(dst, lines)
	switch {
	case err != nil:
		if string(out) != "kept:" {
			return sprintf("error %q, and dst changed to %q", err.Error(), out)
		}
		return sprintf("error %q", err.Error())
	case !defined:
		if string(out) != "kept:" {
			return sprintf("undefined, and dst changed to %q", out)
		}
		return "undefined"
	case !strings.HasPrefix(string(out), "kept:"):
		return sprintf("dst lost: %q", out)
	}
	return string(out[len("kept:"):])
}

// Delta literal pieces. canonicalPieces are JSON.stringify's own writing of
// strings without surrogates (a body copies them; plain ASCII of 1, 4, 8,
// 9, 12, 16 and 17 bytes, around the word-sized copies' cases); the rest decode to the
// same kind of text but are written otherwise (\/, \u escapes), or hold
// surrogates, escaped or raw (WTF-8), whose halves pair across deltas, or
// are no JSON at all.
var (
	canonicalPieces = []string{"a", "abcd", "abcdefgh", "abcdefghi", "abcdefghijkl", "abcdefghijklmnop", "abcdefghijklmnopq",
		" ", "é", "€", "😀", "\u007f",
		`\"`, `\\`, `\n`, `\t`, `\b`, `\f`, `\r`, `\\n`, `\\\"`}
	otherPieces = []string{`\/`, `\u0041`, `\u001f`, `\u00e9`, `\u2028`, `\ud83d`, `\ude00`, `\uD83D`, `\uDE00`,
		`\uD83D\uDE00`, "\xed\xa0\xbd", "\xed\xb8\x80", "\xff", "\xc3"}
	badPieces = []string{"\x01", `"`, `\x`, `\`, `\u12`}
)

// genTextLog is a frame log of text, thinking and tool call blocks whose
// deltas are drawn from the pieces above: mostly bodies the fast path
// copies, with deltas that leave it (other and bad pieces, non-string
// deltas, other envelopes) anywhere in a run, surrogate halves split across
// deltas, blocks that start with text of their own (a lone surrogate
// included), end frames, and the odd block that never ends.
func genTextLog(t *rapid.T) [][]byte {
	startText := rapid.SampledFrom([]string{``, `x`, `\ud83d`, `\u0001`, `é\/`}).Draw(t, "startText")
	lines := []string{
		`{"type":"start","partial":` + testPartial + `}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"` + startText + `"}}`,
		`{"type":"thinking_start","contentIndex":1,"content":{"type":"thinking","thinking":""}}`,
		`{"type":"toolcall_start","contentIndex":2,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`,
	}
	odd := rapid.IntRange(2, 30).Draw(t, "odd")
	rare := func(label string) bool { return rapid.IntRange(0, odd-1).Draw(t, label) == 0 }
	kinds := []string{"text_delta", "thinking_delta", "toolcall_delta"}
	ends := []string{
		`{"type":"text_end","contentIndex":0,"content":"done"}`,
		`{"type":"thinking_end","contentIndex":1,"content":"t"}`,
		`{"type":"toolcall_end","contentIndex":2,"id":"i","name":"n","arguments":{"a":1}}`,
	}
	var ended [3]bool
	for n := rapid.IntRange(0, 40).Draw(t, "frames"); n > 0; n-- {
		block := rapid.IntRange(0, 2).Draw(t, "block")
		if rapid.IntRange(0, 3).Draw(t, "sameBlock") > 0 {
			block = 0 // runs on one block are the common case
		}
		if ended[block] {
			continue // a delta there is an error, which the stored lists cover
		}
		if rare("end") {
			if block == 2 && rapid.Bool().Draw(t, "checkpoint") {
				lines = append(lines, `{"type":"toolcall_checkpoint","contentIndex":2,"json":"{\"a\":\"é"}`)
				continue
			}
			lines = append(lines, ends[block])
			ended[block] = true
			continue
		}
		delta := `"` + genPieces(t, rare) + `"`
		if rare("nonString") {
			delta = rapid.SampledFrom([]string{"1", "null", "{}"}).Draw(t, "value")
		}
		line := `{"type":"` + kinds[block] + `","contentIndex":` + string(rune('0'+block)) + `,"delta":` + delta + `}`
		if rare("envelope") {
			line = strings.Replace(line, `,"delta"`, rapid.SampledFrom([]string{`, "delta"`, `,"d\u0065lta"`, `,"x":1,"delta"`}).Draw(t, "envelope"), 1)
		}
		lines = append(lines, line)
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

// genPieces is a delta literal's contents: canonical pieces, and when rare
// says so one other or bad piece among them.
func genPieces(t *rapid.T, rare func(string) bool) string {
	pieces := rapid.SliceOfN(rapid.SampledFrom(canonicalPieces), 0, 4).Draw(t, "pieces")
	if rare("other") {
		odd := rapid.SampledFrom(otherPieces).Draw(t, "otherPiece")
		if rare("bad") {
			odd = rapid.SampledFrom(badPieces).Draw(t, "badPiece")
		}
		at := rapid.IntRange(0, len(pieces)).Draw(t, "at")
		pieces = append(pieces[:at:at], append([]string{odd}, pieces[at:]...)...)
	}
	return strings.Join(pieces, "")
}

// AppendReducedJSON, which copies canonical delta literals into the
// message's JSON, writes what the exact path writes (parse every frame,
// ReduceValues, AppendJSON), or fails with its error, leaving dst as it was;
// and so does a StoredReducer that reduced the lists before (its buffers
// reused), twice in a row.
func TestAppendReducedJSONMatchesExact(t *testing.T) {
	shared := new(StoredReducer)
	rapid.Check(t, func(t *rapid.T) {
		lines := genReduceLog(t)
		want := exactOutcome(lines)
		if got := writeOutcome(lines); got != want {
			t.Fatalf("AppendReducedJSON %s\nexact path %s\nlines:\n%s", got, want, joinLines(lines))
		}
		for range 2 {
			if got := writeOutcomeWith(shared, lines); got != want {
				t.Fatalf("StoredReducer.AppendReducedJSON %s\nexact path %s\nlines:\n%s", got, want, joinLines(lines))
			}
		}
	})
}

// genReduceLog is a text log (genTextLog), or one time in four any stored
// lines (genStoredLines).
func genReduceLog(t *rapid.T) [][]byte {
	if rapid.IntRange(0, 3).Draw(t, "stored") == 0 {
		return genStoredLines(t)
	}
	return genTextLog(t)
}

// Most of TestAppendReducedJSONMatchesExact's lists reduce to a message,
// and most delta frames in the encoder's envelope are copied, but not
// all: the comparison is about the text, and must not pass by erroring.
func TestReduceLogsReachMessagesAndCopies(t *testing.T) {
	copied, total := 0, 0
	logs := sample(genReduceLog, 200)
	for _, lines := range logs {
		for _, l := range lines {
			if d, ok := parseDeltaFrame(l); ok {
				total++
				if canonicalBody(d.raw) {
					copied++
				}
			}
		}
	}
	messages := count(logs, func(lines [][]byte) bool { return strings.HasPrefix(exactOutcome(lines), "{") })
	requireShare(t, "lists that reduce to a message", messages, len(logs), 1, 2)
	requireShare(t, "delta frames with canonical literals", copied, total, 1, 2)
	if copied == total {
		t.Fatalf("all %d delta literals canonical", total)
	}
}

// The split surrogate pair, the case a body cannot carry: each half alone
// is a lone surrogate (JSON.stringify escapes it), together they are one
// character written raw.
func TestAppendReducedJSONJoinsSplitPairs(t *testing.T) {
	for _, pair := range [][2]string{{`\ud83d`, `\ude00`}, {"\xed\xa0\xbd", "\xed\xb8\x80"}, {`\ud83d`, "\xed\xb8\x80"}} {
		lines := [][]byte{
			[]byte(`{"type":"start","partial":` + testPartial + `}`),
			[]byte(`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`),
			[]byte(`{"type":"text_delta","contentIndex":0,"delta":"ab\n"}`),
			[]byte(`{"type":"text_delta","contentIndex":0,"delta":"` + pair[0] + `"}`),
			[]byte(`{"type":"text_delta","contentIndex":0,"delta":"` + pair[1] + `é"}`),
			[]byte(`{"type":"text_delta","contentIndex":0,"delta":"\"c"}`),
		}
		got, want := writeOutcome(lines), exactOutcome(lines)
		if got != want || !strings.Contains(got, `"text":"ab\n😀é\"c"`) {
			t.Fatalf("pair %q: AppendReducedJSON %s\nexact path %s", pair, got, want)
		}
	}
}

// Any stored frame log reduces to the same message JSON or error through
// AppendReducedJSON as through the exact path.
func FuzzAppendReducedJSON(f *testing.F) {
	f.Add(`{"type":"start","partial":` + testPartial + `}
{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}
{"type":"text_delta","contentIndex":0,"delta":"a\"b\\é"}
{"type":"text_delta","contentIndex":0,"delta":"\ud83d"}
{"type":"text_delta","contentIndex":0,"delta":"\ude00\/"}
{"type":"text_delta","contentIndex":0,"delta":"x"}`)
	f.Add(`{"type":"start","partial":` + testPartial + `}
{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":"\u0001"}}
{"type":"thinking_delta","contentIndex":0,"delta":"abcdefghijklmnopqrstu"}
{"type":"thinking_delta","contentIndex":0,"delta":1}
{"type":"thinking_delta","contentIndex":0,"delta":"\t"}`)
	f.Fuzz(func(t *testing.T, log string) {
		var lines [][]byte
		for _, l := range strings.Split(log, "\n") {
			lines = append(lines, []byte(l))
		}
		if got, want := writeOutcome(lines), exactOutcome(lines); got != want {
			t.Fatalf("AppendReducedJSON %s\nexact path %s", got, want)
		}
	})
}

// Every literal length around the word-sized copies (up to 8 and up to 16
// bytes), plain and with an escape, a character or something that leaves
// the copy path at each position, between two other deltas: the text must
// come out in order, byte for byte.
func TestAppendReducedJSONLiteralLengths(t *testing.T) {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
	odd := []string{"é", "😀", `\"`, `\n`, `\/`, `\u0041`, `\ud83d`, "\x01", `"`}
	for l := 0; l <= len(letters); l++ {
		bodies := []string{letters[:l]}
		for at := 0; at < l; at++ {
			for _, o := range odd {
				bodies = append(bodies, letters[:at]+o+letters[at+1:l])
			}
		}
		for _, body := range bodies {
			lines := [][]byte{
				[]byte(`{"type":"start","partial":` + testPartial + `}`),
				[]byte(`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":""}}`),
				[]byte(`{"type":"text_delta","contentIndex":0,"delta":"<"}`),
				[]byte(`{"type":"text_delta","contentIndex":0,"delta":"` + body + `"}`),
				[]byte(`{"type":"text_delta","contentIndex":0,"delta":">"}`),
			}
			if got, want := writeOutcome(lines), exactOutcome(lines); got != want {
				t.Fatalf("literal %q: AppendReducedJSON %s\nexact path %s", body, got, want)
			}
		}
	}
}

// Many blocks still gathering text at the end (each written from its
// body, found through an index past a few): each gets its own text.
func TestAppendReducedJSONManyOpenBlocks(t *testing.T) {
	for _, blocks := range []int{1, 8, 9, 40} {
		lines := [][]byte{[]byte(`{"type":"start","partial":` + testPartial + `}`)}
		for i := 0; i < blocks; i++ {
			n := sprintf("%d", i)
			kind, member := "text", "text"
			if i%3 == 1 {
				kind, member = "thinking", "thinking"
			}
			lines = append(lines,
				[]byte(`{"type":"`+kind+`_start","contentIndex":`+n+`,"content":{"type":"`+kind+`","`+member+`":"`+n+`:"}}`),
				[]byte(`{"type":"`+kind+`_delta","contentIndex":`+n+`,"delta":"a\"`+n+`"}`),
				[]byte(`{"type":"`+kind+`_delta","contentIndex":`+n+`,"delta":"é`+n+`"}`))
		}
		got, want := writeOutcome(lines), exactOutcome(lines)
		if got != want || !strings.Contains(got, `"text":"0:a\"0é0"`) {
			t.Fatalf("%d blocks: AppendReducedJSON %s\nexact path %s", blocks, got, want)
		}
	}
}

// copyBodies, which matches the prefix as seven words when it is 40 to 56
// bytes long and byte by byte otherwise, takes the frames a plain compare
// takes, and copies their literals: for prefixes of every length around
// those bounds, and frames that differ from one in any byte. Each length
// copyRun is compiled for (47, 48, 51, 52) is drawn as often as all the
// others.
func TestCopyBodiesMatchesPlainCompare(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		digits := rapid.IntRange(1, 12).Draw(t, "digits")
		typ := rapid.SampledFrom([]string{"text_delta", "thinking_delta", "toolcall_delta", "t"}).Draw(t, "type")
		if rapid.Bool().Draw(t, "compiled") {
			digits = rapid.IntRange(1, 2).Draw(t, "digits12")
			typ = rapid.SampledFrom([]string{"text_delta", "thinking_delta"}).Draw(t, "type12")
		}
		prefix := []byte(`{"type":"` + typ + `","contentIndex":` + strings.Repeat("7", digits) + `,"delta":"`)
		var frames [][]byte
		for n := rapid.IntRange(0, 8).Draw(t, "frames"); n > 0; n-- {
			body := genPieces(t, func(string) bool { return rapid.IntRange(0, 5).Draw(t, "rare") == 0 })
			f := append(append([]byte(string(prefix)), body...), `"}`...)
			if rapid.IntRange(0, 5).Draw(t, "differ") == 0 {
				at := rapid.IntRange(0, len(f)-1).Draw(t, "at")
				f[at] ^= byte(rapid.IntRange(1, 255).Draw(t, "xor"))
			}
			if rapid.IntRange(0, 9).Draw(t, "cut") == 0 {
				f = f[:rapid.IntRange(0, len(f)).Draw(t, "len")]
			}
			frames = append(frames, f)
		}
		var want []byte
		took := 0
		for _, f := range frames {
			end := len(f) - 2
			if end < len(prefix) || string(f[:len(prefix)]) != string(prefix) || string(f[end:]) != `"}` || !canonicalBody(f[len(prefix):end]) {
				break
			}
			want = append(want, f[len(prefix):end]...)
			took++
		}
		a := jsAccum{isStr: true, esc: true, buf: []byte("<")}
		if n := a.copyBodies(frames, prefix, nil); n != took || string(a.buf) != "<"+string(want) {
			t.Fatalf("prefix %s: copyBodies took %d frames, %q; a plain compare takes %d, %q", prefix, n, a.buf, took, "<"+string(want))
		}
	})
}

// copyBodies takes exactly the frames canonicalBody takes one by one,
// however long the run, wherever the literal that is not canonical falls,
// and whatever it shares with its neighbours: a literal that ends in a
// backslash or a lead byte before one that begins with what would
// complete it (`\` + `n`, "\xc3" + "\xa9") is not canonical, though the
// text joined would be.
func TestCopyBodiesMatchesOneByOne(t *testing.T) {
	prefix := []byte(`{"type":"text_delta","contentIndex":0,"delta":"`)
	good := []string{"", "a", "abcdefgh", "abcdefgh é", `\"`, `\\`, `\n`, "é", "€", "😀", "abcdefghijklmnopq", `x\\\"é\n`}
	halves := [][2]string{{`\`, `n`}, {`ab\`, `"c`}, {"\xc3", "\xa9"}, {"a\xe2\x82", "\xac"}, {"\xf0\x9f", "\x98\x80"}, {`\\\`, `\`}, {`\`, `u0041`}}
	bad := []string{`\/`, `\u0041`, "\x01", `"`, "\xed\xa0\xbd", "\xff", `\`}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{1, 2, 7, 63, 64, 65, 131}).Draw(t, "frames")
		lits := make([]string, n)
		for i := range lits {
			lits[i] = good[(i*5)%len(good)]
		}
		switch rapid.IntRange(0, 2).Draw(t, "flaw") {
		case 1:
			at := rapid.IntRange(0, n-1).Draw(t, "at")
			b := rapid.SampledFrom(bad).Draw(t, "bad")
			if rapid.Bool().Draw(t, "after") {
				lits[at] += b
			} else {
				lits[at] = b + lits[at]
			}
		case 2:
			if n > 1 {
				at := rapid.IntRange(0, n-2).Draw(t, "at")
				h := rapid.SampledFrom(halves).Draw(t, "halves")
				lits[at], lits[at+1] = lits[at]+h[0], h[1]+lits[at+1]
			}
		}
		frames := make([][]byte, n)
		for i, l := range lits {
			frames[i] = append(append(append([]byte(nil), prefix...), l...), `"}`...)
		}
		want, took := "", 0
		for _, l := range lits {
			if !canonicalBody([]byte(l)) {
				break
			}
			want += l
			took++
		}
		a := jsAccum{isStr: true, esc: true, buf: []byte("<")}
		if got := a.copyBodies(frames, prefix, nil); got != took || string(a.buf) != "<"+want {
			t.Fatalf("copyBodies took %d frames (%d bytes); one by one %d (%d bytes)", got, len(a.buf)-1, took, len(want))
		}
	})
}

// A literalCache shared by many runs answers as canonicalBody does:
// literals of 1 to 27 bytes (one to three words, and past them) from a few
// bytes and pieces, so that the same
// literal comes back, others of the same length and words share its slot,
// and literals that are not canonical (never cached) come between.
func TestLiteralCacheMatchesCanonicalBody(t *testing.T) {
	prefix := []byte(`{"type":"text_delta","contentIndex":0,"delta":"`)
	lits := new(literalCache)
	rapid.Check(t, func(t *rapid.T) {
		body := genLiteralBody(t)
		f := append(append(append([]byte(nil), prefix...), body...), `"}`...)
		var a jsAccum
		for range 2 { // the second time from the cache, when it is canonical
			a.buf = a.buf[:0]
			n := a.copyBodies([][]byte{f}, prefix, lits)
			if want := canonicalBody(body); (n == 1) != want || n == 1 && string(a.buf) != string(body) {
				t.Fatalf("literal %q: copyBodies took %d frames (%q), canonicalBody %v", body, n, a.buf, want)
			}
		}
		// A canonical literal that is not plain is cached by the words
		// copyFrames reads it as from its frame, so the next one hits.
		if cachedByWords(body) && !inLiteralCache(lits, f, len(prefix)) {
			t.Fatalf("literal %q: not cached by the words the loop reads", body)
		}
	})
}

// inLiteralCache reports whether lits holds the literal of frame f (its
// body from f[at:] to the closing `"}`) under the words copyFrames reads
// it as.
func inLiteralCache(lits *literalCache, f []byte, at int) bool {
	end := len(f) - 2
	l := end - at
	var first, mid uint64
	last := le64(f[end-8:])
	switch {
	case l <= 8:
		last >>= 64 - 8*l
	case l <= 16:
		first = le64(f[at:])
	default:
		first, mid = le64(f[at:]), le64(f[at+8:])
	}
	e := &lits[slotOf(first, mid, last, l)]
	return e[0].is(first, mid, last, l) || e[1].is(first, mid, last, l)
}

// genLiteralBody is a delta literal of 1 to 25 bytes and more, of pieces
// plain, escaped, not canonical (a lone backslash, a cut UTF-8 sequence,
// a raw quote) and non-ASCII.
func genLiteralBody(t *rapid.T) []byte {
	pieces := []string{"a", "b", "é", `\"`, `\n`, `\/`, `\`, "\xc3", `"`, "€"}
	var body []byte
	for n := rapid.IntRange(1, 25).Draw(t, "len"); len(body) < n; {
		body = append(body, rapid.SampledFrom(pieces).Draw(t, "piece")...)
	}
	return body
}

// cachedByWords reports whether the literal cache keeps body by the words
// copyFrames reads it as: canonical, not plain, at most three words.
func cachedByWords(body []byte) bool {
	return canonicalBody(body) && len(body) <= 24 && !plainBytes(body)
}

// TestLiteralCacheMatchesCanonicalBody's literals are often ones the
// cache holds after copyBodies has read them, and often not.
func TestLiteralBodiesReachTheCache(t *testing.T) {
	prefix := []byte(`{"type":"text_delta","contentIndex":0,"delta":"`)
	lits := new(literalCache)
	bodies := sample(genLiteralBody, 200)
	held := count(bodies, func(body []byte) bool {
		f := append(append(append([]byte(nil), prefix...), body...), `"}`...)
		var a jsAccum
		a.copyBodies([][]byte{f}, prefix, lits)
		return inLiteralCache(lits, f, len(prefix))
	})
	requireShare(t, "literals the cache holds", held, len(bodies), 1, 5)
	requireShare(t, "literals it does not", len(bodies)-held, len(bodies), 1, 10)
}

// plainBytes reports whether every byte of b is pi.PlainJSONByte.
func plainBytes(b []byte) bool {
	for _, c := range b {
		if !pi.PlainJSONByte(c) {
			return false
		}
	}
	return true
}

// Literals that share a cache slot and the word that ends them, but not
// the bytes that start them or their length: the one that is not
// canonical must not be taken for the one that is.
func TestLiteralCacheTellsSlotMatesApart(t *testing.T) {
	prefix := []byte(`{"type":"text_delta","contentIndex":0,"delta":"`)
	var canon, other [][]byte
	for _, a := range []byte("ab\\\"/\x01\xc3\xa9nz") {
		for _, b := range []byte("ab\\\"/\x01\xc3\xa9nz") {
			lit := append([]byte{a, b}, "cdefghij"...)
			if canonicalBody(lit) {
				canon = append(canon, lit)
			} else {
				other = append(other, lit)
			}
		}
	}
	// And short ones that are the same word: a literal, and it with a NUL
	// after it (the word that ends a literal of up to 8 bytes is shifted
	// down, zeros above).
	var short [][2][]byte
	for _, a := range []string{"a", "ab", "é", `\n`, "abcdef", "abcdefg"} {
		short = append(short, [2][]byte{[]byte(a), []byte(a + "\x00")})
	}
	slot := func(lit []byte) uint64 {
		var first, mid, last uint64
		switch {
		case len(lit) <= 8:
			var w [8]byte
			copy(w[:], lit)
			last = le64(w[:])
		case len(lit) <= 16:
			first, last = le64(lit), le64(lit[len(lit)-8:])
		default:
			first, mid, last = le64(lit), le64(lit[8:]), le64(lit[len(lit)-8:])
		}
		return ((first^mid^last)*0x9E3779B97F4A7C15 + uint64(len(lit))) >> 58
	}
	// And ones of 17 to 24 bytes that share the words that start and end
	// them but not the word between.
	for l := 17; l <= 24; l++ {
		var canonMid, otherMid [][]byte
		for _, a := range []byte("ab\\\"/\x01\xc3\xa9nz") {
			for _, b := range []byte("ab\\\"/\x01\xc3\xa9nz") {
				lit := []byte("abcdefgh" + string([]byte{a, b}) + "ijklmnopqrstuv")[:l]
				copy(lit[l-8:], "stuvwxyz")
				if canonicalBody(lit) {
					canonMid = append(canonMid, lit)
				} else {
					otherMid = append(otherMid, lit)
				}
			}
		}
		for _, c := range canonMid {
			for _, o := range otherMid {
				short = append(short, [2][]byte{c, o})
			}
		}
	}
	var mates [][2][]byte
	for _, c := range canon {
		for _, o := range other {
			mates = append(mates, [2][]byte{c, o})
		}
	}
	pairs := 0
	for _, m := range append(mates, short...) {
		c, o := m[0], m[1]
		if slot(c) != slot(o) {
			continue
		}
		pairs++
		lits := new(literalCache)
		var a jsAccum
		for _, lit := range [][]byte{c, o} {
			a.buf = a.buf[:0]
			f := append(append(append([]byte(nil), prefix...), lit...), `"}`...)
			if n := a.copyBodies([][]byte{f}, prefix, lits); (n == 1) != canonicalBody(lit) {
				t.Fatalf("after %q, literal %q: copyBodies took %d frames", c, lit, n)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no two literals shared a slot")
	}
	// A slot holds two: two canonical literals filled, then one that is
	// not, in the same slot; then the first again, kept in the second way.
	bySlot := map[uint64][2][][]byte{}
	for i, group := range [][][]byte{canon, other} {
		for _, lit := range group {
			g := bySlot[slot(lit)]
			g[i] = append(g[i], lit)
			bySlot[slot(lit)] = g
		}
	}
	triples := 0
	for _, g := range bySlot {
		if len(g[0]) < 2 || len(g[1]) == 0 {
			continue
		}
		triples++
		lits := new(literalCache)
		var a jsAccum
		for _, lit := range [][]byte{g[0][0], g[0][1], g[1][0], g[0][0], g[1][0]} {
			a.buf = a.buf[:0]
			f := append(append(append([]byte(nil), prefix...), lit...), `"}`...)
			if n := a.copyBodies([][]byte{f}, prefix, lits); (n == 1) != canonicalBody(lit) {
				t.Fatalf("literal %q after %q and %q: copyBodies took %d frames", lit, g[0][0], g[0][1], n)
			}
		}
	}
	if triples == 0 {
		t.Fatal("no slot held two canonical literals and one other")
	}
}

// genSingleLog is a frame log in appendSingle's shape or a byte away from
// it: a start frame, a text or thinking block's start at index 0 (now and
// then another index, kind or text), and deltas on it drawn from the
// pieces (now and then one that leaves the shape: another type, index or
// envelope, a literal that is not canonical), and now and then a frame
// after them.
func genSingleLog(t *rapid.T) [][]byte {
	// Half the lists are clean (nothing rare: the shape appendSingle
	// takes), so that many reach it (TestSingleLogsReachAppendSingle).
	clean := rapid.Bool().Draw(t, "clean")
	odd := rapid.IntRange(2, 40).Draw(t, "odd")
	rare := func(label string) bool { return !clean && rapid.IntRange(0, odd-1).Draw(t, label) == 0 }
	kind, member := "text", "text"
	if rapid.Bool().Draw(t, "thinking") {
		kind, member = "thinking", "thinking"
	}
	start := `{"type":"start","partial":` + testPartial + `}`
	if rare("otherStart") {
		start = rapid.SampledFrom([]string{`{"type":"start","partial":{"content":[1]}}`, `{"type":"start", "partial":{}}`, `{"type":"text_end"}`}).Draw(t, "start")
	}
	index := "0"
	if rare("index") {
		index = rapid.SampledFrom([]string{"1", "00", "-0"}).Draw(t, "startIndex")
	}
	// The block's own text leaves the shape more often: one that is not
	// canonical is decoded and written again by the general path.
	text := genPieces(t, func(label string) bool { return !clean && rapid.IntRange(0, 3).Draw(t, label) == 0 })
	blockStart := `{"type":"` + kind + `_start","contentIndex":` + index + `,"content":{"type":"` + kind + `","` + member + `":"` + text + `"}}`
	if rare("otherBlock") {
		blockStart = rapid.SampledFrom([]string{`{"type":"text_start","contentIndex":0,"content":{"type":"thinking","text":""}}`,
			`{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`}).Draw(t, "blockStart")
	}
	lines := []string{start, blockStart}
	for n := rapid.IntRange(0, 40).Draw(t, "deltas"); n > 0; n-- {
		typ, at := kind, "0"
		if rare("otherDelta") {
			typ = rapid.SampledFrom([]string{"text", "thinking", "toolcall"}).Draw(t, "deltaType")
			at = rapid.SampledFrom([]string{"0", "1", "01"}).Draw(t, "deltaIndex")
		}
		line := `{"type":"` + typ + `_delta","contentIndex":` + at + `,"delta":"` + genPieces(t, rare) + `"}`
		if rare("envelope") {
			line = strings.Replace(line, `,"delta"`, rapid.SampledFrom([]string{`, "delta"`, `,"d\u0065lta"`, `,"x":1,"delta"`}).Draw(t, "envelope"), 1)
		}
		lines = append(lines, line)
	}
	if rare("after") {
		lines = append(lines, rapid.SampledFrom([]string{`{"type":"` + kind + `_end","contentIndex":0,"content":"done"}`,
			`{"type":"done"}`, `{"type":"start","partial":{}}`}).Draw(t, "after"))
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

// A list in appendSingle's shape gives the general path's bytes, and one
// a byte away from it what the general path gives (an error included),
// through a fresh StoredReducer and one that reduced other lists before.
func TestAppendSingleMatchesExact(t *testing.T) {
	shared := new(StoredReducer)
	rapid.Check(t, func(t *rapid.T) {
		lines := genSingleLog(t)
		want := exactOutcome(lines)
		if got := writeOutcome(lines); got != want {
			t.Fatalf("AppendReducedJSON: %s\ngeneral path: %s", got, want)
		}
		if got := writeOutcomeWith(shared, lines); got != want {
			t.Fatalf("AppendReducedJSON after other lists: %s\ngeneral path: %s", got, want)
		}
	})
}

// Many of TestAppendSingleMatchesExact's lists take appendSingle, and
// many do not.
func TestSingleLogsReachAppendSingle(t *testing.T) {
	logs := sample(genSingleLog, 200)
	single := count(logs, func(lines [][]byte) bool {
		_, ok := new(StoredReducer).appendSingle(nil, lines)
		return ok
	})
	requireShare(t, "lists appendSingle takes", single, len(logs), 1, 4)
	requireShare(t, "lists it does not", len(logs)-single, len(logs), 1, 10)
}
