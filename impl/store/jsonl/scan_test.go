package jsonl

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/stretchr/testify/require"
)

// scanValid is the scanner's verdict on a whole line.
func scanValid(line []byte) bool {
	var s scanner
	s.reset(line)
	end, ok := s.value(s.space(0))
	return ok && s.space(end) == len(line)
}

// The scanner accepts exactly what encoding/json's validator accepts (the
// JSON grammar JSON.parse implements) on valid lines and on random byte
// mutations of them.
func TestScannerAgreesWithJSONValid(t *testing.T) {
	seeds := []string{
		`{"a":[1,-0.5e+3,true,false,null,{"b":"c\"\\\/\b\f\n\r\t\u00e9"}],"d":{}}`,
		`[{"kind":"list","op":"append","seq":12,"namespace":"n","key":"k","value":{"delta":"x y z"}}]`,
		` { "a" : [ 1 , 2 ] } `, `""`, `0`, `-0`, `1E5`, `[]`, `{}`, `[[[[]]]]`,
	}
	for _, f := range []string{"valid.jsonl", "fork-destination-nextseq.jsonl"} {
		content, err := os.ReadFile(corpusDir + "/" + f)
		require.NoError(t, err)
		seeds = append(seeds, strings.Split(strings.TrimSpace(string(content)), "\n")...)
	}
	bad := []string{`{"a":1,}`, `[1,]`, `01`, `1.`, `.5`, `1e`, `-`, `"\x"`, "\"\x01\"", `"\u12G4"`, `tru`, `nul`, `{"a" 1}`, `{1:2}`, `[1 2]`, `"abc`, `{"a":1}}`, ``}
	for _, b := range bad {
		require.False(t, scanValid([]byte(b)), "%q", b)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("{}[]\":,\\ 0123456789-+.eEtrufalsn\x01\x1f\xff\t\r")
	for _, seed := range seeds {
		require.True(t, scanValid([]byte(seed)), "%q", seed)
		for range 2000 {
			line := []byte(seed)
			for range 1 + rng.Intn(3) {
				switch i := rng.Intn(len(line) + 1); rng.Intn(3) {
				case 0:
					if i < len(line) {
						line[i] = alphabet[rng.Intn(len(alphabet))]
					}
				case 1:
					line = append(line[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, line[i:]...)...)
				default:
					if i < len(line) {
						line = append(line[:i], line[i+1:]...)
					}
				}
			}
			require.Equal(t, json.Valid(line), scanValid(line), "%q", line)
		}
	}
}

var frameLine = []byte(`{"kind":"list","op":"append","seq":1234567,"namespace":"pi.pending.assistant_frame","key":"op123:r123","value":{"type":"text_delta","contentIndex":0,"delta":"streamed words 17 of the reply, "}}`)

func BenchmarkScanFrameLine(b *testing.B) {
	var p lineParser
	b.SetBytes(int64(len(frameLine)))
	for range b.N {
		if !p.scan(frameLine) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkParseFrameLine(b *testing.B) {
	var p lineParser
	b.SetBytes(int64(len(frameLine)))
	for range b.N {
		if _, _, err := p.parse(frameLine); err != nil {
			b.Fatal(err)
		}
	}
}

// fieldSlotBytes (the scanner's fast path) and fieldSlot (escaped keys)
// agree on every name.
func TestFieldSlotsAgree(t *testing.T) {
	for _, n := range []string{"seq", "kind", "op", "timestamp", "id", "parentId", "namespace", "key", "value",
		"", "s", "se", "seqs", "Kind", "values", "parentID", "timestamps", "ke", "ix", "namespacE", "valuE"} {
		require.Equal(t, fieldSlot(n), fieldSlotBytes([]byte(n)), n)
	}
	require.Equal(t, fKey, fieldSlot("key"))
}

// strReference is scanner.str one byte at a time, without the eight-byte
// words: what the word loop must agree with.
func strReference(b []byte, i int) (end int, esc, ok bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			esc = true
			j++
			if j >= len(b) {
				return 0, false, false
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return 0, false, false
				}
				j += 4
			default:
				return 0, false, false
			}
		}
	}
	return 0, false, false
}

// The string scan (a word test, then a vector search for long runs) finds
// the same end, escapes and verdict as the byte loop, wherever the special
// byte falls, in strings as short as a key and as long as a message.
func TestStrAgreesWithByteLoop(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	// mostly plain bytes, so that strings run past several words
	alphabet := []byte("abcdefghijklmnopqrstuvwxyz0123456789 é\xff\x80\x7f\x1f\x00\"\\u/nA")
	for range 200_000 {
		line := make([]byte, 1+rng.Intn([]int{40, 300}[rng.Intn(2)]))
		line[0] = '"'
		rate := []int{6, 60}[rng.Intn(2)] // 1 in rate bytes is special
		for k := 1; k < len(line); k++ {
			if rng.Intn(rate) == 0 {
				line[k] = alphabet[len(alphabet)-11+rng.Intn(11)]
			} else {
				line[k] = alphabet[rng.Intn(len(alphabet)-11)]
			}
		}
		var s scanner
		s.reset(line)
		end, esc, ok := s.str(0)
		wantEnd, wantEsc, wantOK := strReference(line, 0)
		if end != wantEnd || esc != wantEsc || ok != wantOK {
			t.Fatalf("%q: str = %d %v %v, byte loop %d %v %v", line, end, esc, ok, wantEnd, wantEsc, wantOK)
		}
	}
}

// row's copy of runs of kept members builds the object the general path
// (objectFields, without, encodeObject) builds, for any members in any
// order, dropped ones anywhere among them, and row's test for keys that
// JSON.parse merges or moves (needsJSOrder) never lets such keys through.
func TestRowRunsAgreeWithGeneralPath(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	keys := []string{"kind", "seq", "timestamp", "id", "type", "message", "usage", "entryId", "x", "xy", "y", "1", `kind`, `xy`}
	values := []string{`1`, `"s"`, `{"a":[1,{"b":2}]}`, `null`, `[]`, `"entry"`}
	drops := [][]string{{"kind", "seq", "timestamp"}, {"kind", "seq"}, {}}
	for range 50_000 {
		// Mostly distinct names, so the fast path is taken often; with
		// repeats, digits and escapes now and then.
		var perm []int
		if rng.Intn(2) == 0 {
			perm = rng.Perm(9)[:rng.Intn(10)]
		} else {
			for range rng.Intn(6) {
				perm = append(perm, rng.Intn(len(keys)))
			}
		}
		names := make([]string, len(perm))
		for i, k := range perm {
			names[i] = keys[k]
		}
		// One line in four has more members than needsJSOrder compares
		// pair by pair (store.PairwiseKeys): fillers among them, a repeat now
		// and then.
		if rng.Intn(4) == 0 {
			for range store.PairwiseKeys + rng.Intn(8) {
				at := rng.Intn(len(names) + 1)
				names = append(names[:at], append([]string{fmt.Sprintf("f%d", rng.Intn(40))}, names[at:]...)...)
			}
		}
		var line strings.Builder
		line.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				line.WriteByte(',')
			}
			line.WriteString(`"` + k + `":` + values[rng.Intn(len(values))])
		}
		line.WriteByte('}')
		var p lineParser
		require.True(t, p.scan([]byte(line.String())), line.String())
		r := p.records[0]
		for _, drop := range drops {
			want := encodeObject(nil, without(p.objectFields(p.members[r.m0:r.m1]), drop...))
			require.Equal(t, string(want), string(p.row(r, drop...)), "%s without %v", line.String(), drop)
		}
	}
}

// Resuming a value's scan after the learned prefix (appendShape.scanValue)
// ends where, and fails when, scanning the whole value does, for values
// that start with the prefix and then go on any way.
func TestValueResumeAgreesWithScan(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	templates := []string{
		`{"type":"text_delta","contentIndex":0,"delta":"streamed words 1 of the reply, "}`,
		`{"a":{"b":[1,2]},"c":"d"}`,
		`{"only":1}`,
		`{"type":"toolcall_delta","contentIndex":1,"delta":"{\"path\":"}`,
	}
	alphabet := []byte("{}[]\":,\\ 0123456789-.etrufalsn\x01")
	for _, tmpl := range templates {
		var p lineParser
		p.sc.reset([]byte(tmpl))
		_, ms, ok := p.sc.object(0, nil)
		require.True(t, ok, tmpl)
		prefix := tmpl[:ms[len(ms)-1].vs]
		a := appendShape{vprefix: []byte(prefix)}
		for range 5000 {
			// Mostly the tail is mutated, so the prefix matches; now and
			// then the prefix, so it does not.
			from := len(prefix)
			if rng.Intn(4) == 0 {
				from = 0
			}
			line := mutateFrom(rng, tmpl, from, alphabet)
			var whole, resumed scanner
			whole.reset(line)
			resumed.reset(line)
			wantEnd, wantOK := whole.value(0)
			end, ok := a.scanValue(&resumed, line, 0)
			if wantOK != ok || wantOK && (wantEnd != end || whole.ws != resumed.ws) {
				t.Fatalf("%q: resumed %d %v (ws %v), whole %d %v (ws %v)", line, end, ok, resumed.ws, wantEnd, wantOK, whole.ws)
			}
		}
	}
}

// lastMember and skip, which walk an object the scanner accepted without
// checking it again, find what the checking scan finds: the value span of
// the last member of each name (object's members, last first, as keyIs
// reads them), for accepted objects made by mutating usage-like seeds.
func TestLastMemberAgreesWithObjectScan(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	seeds := []string{
		`{"input":30,"output":20,"cacheRead":0,"totalTokens":50,"cost":{"input":0,"output":0,"total":0}}`,
		`{"cost":null,"cost":{"a":[1,-2.5e+3,true,"}"]}}`,
		` { "co\u0073t" : [ {} , [] , "x\"]" ] , "input" : -0 } `,
		`{"cost":5,"x":false,"cost":"null","y":null}`,
		`{"input":-1.5E+7,"x":2e-3,"cost":true,"y":0.25}`,
		`{}`,
	}
	names := []string{"cost", "input", "x", "y", "a"}
	alphabet := []byte(`{}[]":,\ 0123456789-+.eEtrufalsn`)
	checked := 0
	for range 100_000 {
		line := []byte(seeds[rng.Intn(len(seeds))])
		for range rng.Intn(3) {
			k := rng.Intn(len(line))
			if rng.Intn(2) == 0 {
				line[k] = alphabet[rng.Intn(len(alphabet))]
			} else {
				line = append(line[:k], append([]byte{alphabet[rng.Intn(len(alphabet))]}, line[k:]...)...)
			}
		}
		var p lineParser
		p.sc.reset(line)
		i := p.sc.space(0)
		if !scanValid(line) || line[i] != '{' {
			continue
		}
		_, ms, ok := p.sc.object(i, nil)
		require.True(t, ok, "%s", line)
		for _, m := range ms {
			require.Equal(t, m.ve, p.sc.skip(m.vs), "skip of %s in %s", line[m.vs:m.ve], line)
		}
		for _, name := range names {
			wantVS, wantVE, wantFound := 0, 0, false
			for j := len(ms) - 1; j >= 0; j-- {
				if p.keyIs(ms[j], name) {
					wantVS, wantVE, wantFound = ms[j].vs, ms[j].ve, true
					break
				}
			}
			vs, ve, found := p.sc.lastMember(i, name)
			require.Equal(t, []any{wantVS, wantVE, wantFound}, []any{vs, ve, found}, "member %q of %s", name, line)
		}
		checked++
	}
	require.Greater(t, checked, 10_000) // the mutations leave enough objects accepted
}

// An object value scanned through the memo (memoValue: resumed at the
// checkpoint the value before left when it starts alike, else scanned
// whole and marked) ends where, fails when and sees whitespace as a whole
// scan without the memo does, over a run of values of several shapes in
// one scanner, each mutated, mostly past the prefix its shape shares.
func TestMemoValueAgreesWithScan(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	long := strings.Repeat("x", 40)
	templates := []string{
		`{"role":"user","content":[{"type":"text","text":"` + long + `"}],"timestamp":1}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"` + long + `"},{"type":"text","text":"` + long + `"}]}`,
		`{"role":"user","content":[{"type":"text","text":"short"}],"timestamp":1}`,
		`{"a":{"b":[1,2,{"c":"` + long + `"}]},"d":[[["` + long + `"]]]}`,
		`{ "role" : "user", "content":[{"type":"text","text":"` + long + `"}]}`,
		`{"x":"` + long + `"}`,
	}
	alphabet := []byte("{}[]\":,\\ \n\r\t0123456789-.etrufalsn\x01\xff")
	var memo scanner
	for range 50_000 {
		tmpl := templates[rng.Intn(len(templates))]
		// past the first long string mostly, where the memo resumes
		from := strings.Index(tmpl, long)
		if from < 0 || rng.Intn(4) == 0 {
			from = 0
		}
		line := mutateFrom(rng, tmpl, from, alphabet)
		if line[0] != '{' {
			continue
		}
		if _, _, err := scanAgrees(&memo, line, rng.Intn(2) == 0); err != nil {
			t.Fatal(err)
		}
	}
	if len(memo.memo.prefix) == 0 {
		t.Fatal("no checkpoint was ever taken")
	}
}

// mutateFrom is tmpl with up to three bytes from alphabet overwritten or
// inserted at or past from.
func mutateFrom(rng *rand.Rand, tmpl string, from int, alphabet []byte) []byte {
	v := []byte(tmpl[from:])
	for range rng.Intn(4) {
		i := rng.Intn(len(v) + 1)
		if rng.Intn(2) == 0 && i < len(v) {
			v[i] = alphabet[rng.Intn(len(alphabet))]
		} else {
			v = append(v[:i], append([]byte{alphabet[rng.Intn(len(alphabet))]}, v[i:]...)...)
		}
	}
	return append([]byte(tmpl[:from]), v...)
}

// scanAgrees scans the object value v (its line alone when lines) with
// memo, which keeps its checkpoint from the values before, and with a
// fresh scanner without one; an error says how they differ. It returns
// the whole scan's end and whether it accepted.
func scanAgrees(memo *scanner, v []byte, lines bool) (int, bool, error) {
	whole := scanner{noMemo: true}
	whole.reset(v)
	memo.reset(v)
	whole.lines, memo.lines = lines, lines
	wantEnd, wantOK := whole.scalarOrValue(0)
	end, ok := memo.scalarOrValue(0)
	if wantOK != ok || wantOK && (wantEnd != end || whole.ws != memo.ws) {
		return 0, false, fmt.Errorf("%q (memo %q): memo %d %v (ws %v), whole %d %v (ws %v)",
			v, memo.memo.prefix, end, ok, memo.ws, wantEnd, wantOK, whole.ws)
	}
	return wantEnd, wantOK, nil
}
