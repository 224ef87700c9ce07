package frames

import (
	"fmt"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// failedNumberShapes are inputs where every number fails inside a nested
// container, so the parent loop goes on to the next one: with an 'e'
// (lastE after or before the number) and without one (lastE = -1).
var failedNumberShapes = []struct{ name, open, unit string }{
	{"array-e", "[", "[-e,"},
	{"object-e", "[", `{"a":-e,`},
	{"array-noE", "[", "[-x,"},
	{"object-noE", "[", `{"a":-x,`},
}

// BenchmarkPartialParseFailedNumbers: ParseStreamingJSON of the shapes at
// 1k, 4k and 16k repetitions; ns/op should grow with the size, not with
// its square.
func BenchmarkPartialParseFailedNumbers(b *testing.B) {
	for _, shape := range failedNumberShapes {
		for _, n := range []int{1000, 4000, 16000} {
			s := shape.open + strings.Repeat(shape.unit, n)
			b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for range b.N {
					ParseStreamingJSON(s)
				}
			})
		}
	}
}

// oldRetry is number()'s retry as it was before retryAtLastE: the literal
// JSON.parse(jsonString.substring(start, jsonString.lastIndexOf("e"))).
func oldRetry(p *partialParser, start int) (pi.JSONValue, error) {
	if v, err := jsonParseUnits(p.substring(start, p.lastE)); err == nil {
		return v, nil
	}
	return pi.JSONValue{}, errPartial
}

// retryCase names which branch of retryAtLastE a retry takes.
func retryCase(p *partialParser, start int) string {
	switch {
	case p.lastE > p.i:
		return "after"
	case p.lastE >= start:
		return "prefix"
	case p.lastE >= 0:
		return "before"
	}
	if v, err := oldRetry(p, start); err == nil && !v.IsUndefined() {
		return "whole-ok"
	}
	return "whole-fail"
}

// parseBoth parses units with the old retry, checking at every failed
// number that retryAtLastE gives the same outcome, and with the new one.
func parseBoth(t interface{ Fatalf(string, ...any) }, units []uint16, cases map[string]int) (oldV, newV pi.JSONValue, oldErr, newErr error) {
	old := newPartialParser(units)
	check := newPartialParser(units) // its own wholePrefix memo
	old.retry = func(p *partialParser, start int) (pi.JSONValue, error) {
		check.i = p.i
		want, wantErr := oldRetry(p, start)
		got, gotErr := check.retryAtLastE(start)
		if gotErr != wantErr || !got.Equal(want) {
			t.Fatalf("retry at %d of %q: got %v %v, want %v %v", start, pi.FromUTF16(units),
				string(got.AppendJSON(nil)), gotErr, string(want.AppendJSON(nil)), wantErr)
		}
		if cases != nil {
			c := retryCase(p, start)
			if c == "prefix" && wantErr == nil {
				c = "prefix-ok"
			}
			cases[c]++
		}
		return want, wantErr
	}
	oldV, oldErr = old.parse()
	newV, newErr = partialParse(units)
	return oldV, newV, oldErr, newErr
}

// genPartialNumbers is partial JSON aimed at parseNum: nested arrays and
// objects of numbers built from '-', digits, 'e', 'E', '.', '+' and junk,
// strings, literals and pieces that desync partial-json (`[ ]` returns
// early, and "[{" is then read as structure), cut at any point. Some
// inputs have no 'e' (lastIndexOf("e") = -1) or none after a point (the
// last 'e' before later numbers); some end in a whole JSON text followed
// by a number, the one case where the retry with lastE = -1 parses; some
// are cut just after an 'e'.
func genPartialNumbers(t *rapid.T) []uint16 {
	s := genPartialValue(t, 0)
	switch rapid.IntRange(0, 6).Draw(t, "mode") {
	case 3: // a number whose last 'e' is the input's: retried as its prefix
		s = "[" + s + rapid.SampledFrom([]string{",1e", ",-2.5e", ",1e+", ",0E1e-", ",1ex", "1e"}).Draw(t, "eNumber")
	case 0:
		s = strings.ReplaceAll(s, "e", "")
	case 1:
		at := rapid.IntRange(0, len(s)).Draw(t, "eUntil")
		s = s[:at] + strings.ReplaceAll(s[at:], "e", "")
	case 2:
		s = `[{"a":[ ]},"[{","",` + strings.ReplaceAll(s, "e", "") + "]" +
			rapid.SampledFrom([]string{"", " ", "\n\t"}).Draw(t, "blank") +
			strings.ReplaceAll(genPartialValue(t, 2), "e", "")
	}
	u := pi.ToUTF16(s)
	switch rapid.IntRange(0, 2).Draw(t, "cutAt") {
	case 0:
		return u
	case 1: // just after an 'e', the last one then: a number "1e" retries as "1"
		if at := strings.LastIndex(s[:rapid.IntRange(0, len(s)).Draw(t, "eBefore")], "e"); at >= 0 {
			return pi.ToUTF16(s[:at+1])
		}
	}
	return u[:rapid.IntRange(0, len(u)).Draw(t, "cut")]
}

func genPartialValue(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 9).Draw(t, "kind")
	if depth >= 4 && kind >= 6 {
		kind = 0
	}
	switch kind {
	case 0, 1, 2:
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"-", "0", "1", "9", "e", "E", ".", "+", "x", " "}), 0, 6).Draw(t, "num")
		return strings.Join(parts, "")
	case 3:
		return rapid.SampledFrom([]string{`"a"`, `"e"`, `""`, `"[{"`, `"\"`, `"x`, "nul", "tru", "-I", "NaN", "Infinity", "[ ]", "{ }", ":", "}", "]"}).Draw(t, "atom")
	case 4, 5, 6, 7:
		return "[" + genPartialList(t, depth, false) + rapid.SampledFrom([]string{"]", "", "}"}).Draw(t, "closeArr")
	}
	return "{" + genPartialList(t, depth, true) + rapid.SampledFrom([]string{"}", "", "]"}).Draw(t, "closeObj")
}

func genPartialList(t *rapid.T, depth int, keys bool) string {
	var b strings.Builder
	for n := rapid.IntRange(0, 4).Draw(t, "n"); n > 0; n-- {
		if keys {
			b.WriteString(rapid.SampledFrom([]string{`"a":`, `"e":`, `"__proto__":`, `"a" `, `:`}).Draw(t, "key"))
		}
		b.WriteString(genPartialValue(t, depth+1))
		b.WriteString(rapid.SampledFrom([]string{",", ",", ", ", "", " "}).Draw(t, "sep"))
	}
	return b.String()
}

func TestRetryAtLastEIsTheLiteralRetry(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		units := genPartialNumbers(t)
		oldV, newV, oldErr, newErr := parseBoth(t, units, nil)
		if oldErr != newErr || !oldV.Equal(newV) {
			t.Fatalf("%q: got %s %v, want %s %v", pi.FromUTF16(units),
				newV.AppendJSON(nil), newErr, oldV.AppendJSON(nil), oldErr)
		}
	})
}

// TestRetryAtLastEReach: on a fixed sample, the generator takes every
// branch of retryAtLastE, a whole prefix that parses included.
func TestRetryAtLastEReach(t *testing.T) {
	cases := map[string]int{}
	for _, units := range sample(genPartialNumbers, 500) {
		parseBoth(t, units, cases)
	}
	t.Logf("retries by case: %v", cases)
	for _, c := range []string{"after", "prefix", "prefix-ok", "before", "whole-ok", "whole-fail"} {
		if cases[c] == 0 {
			t.Errorf("no retry took %s", c)
		}
	}
}

// BenchmarkReduceFailedNumbersCheckpoint: the same inputs as a stored
// toolcall_checkpoint's JSON, which the reducer recovers through
// parseStreamingJson.
func BenchmarkReduceFailedNumbersCheckpoint(b *testing.B) {
	start := `{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}}`
	toolStart := `{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}`
	for _, shape := range failedNumberShapes {
		for _, n := range []int{1000, 4000, 16000} {
			json := shape.open + strings.Repeat(shape.unit, n)
			checkpoint := `{"type":"toolcall_checkpoint","contentIndex":0,"json":` + pi.QuoteJSON(json) + `}`
			lines := [][]byte{[]byte(start), []byte(toolStart), []byte(checkpoint)}
			if _, err := ReduceJSON(lines); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d", shape.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(checkpoint)))
				for range b.N {
					_, _ = ReduceJSON(lines)
				}
			})
		}
	}
}

// TestPartialParseRetriesWholePrefix: where the input has no 'e', a failed
// number is retried as all the input before it, which can parse. The
// expected values are partial-json 0.1.7's parse, run under node.
func TestPartialParseRetriesWholePrefix(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[{"a":[ ]},"[{","",1] x`, `[{"a":[]},[{},1],[{"a":[]},"[{","",1]]`},
		{"[{\"a\":[ ]},\"[{\",\"\",1]\n\t-", `[{"a":[]},[{},1]]`},
		{`[{"a":[ ]},"[{","",1],x`, `[{"a":[]},[{},1]]`},
		{`[{"a":[ ]},"[{","",{"b":[1,2]}] 7x`, `[{"a":[]},[{},{"b":[1,2]}],[{"a":[]},"[{","",{"b":[1,2]}]]`},
		{`[[-e,[-e,[-e,`, `[[],[],[]]`},
		{`[{"a":-e,{"a":-e,`, `[{},{}]`},
		{`[[-x,[-x,`, `[[],[]]`},
		{`[1e`, `[1]`},
		{`[[1e5],[-x,[-x`, `[[100000],[],[]]`},
		{`[1ex,2`, `[1,2]`},
	} {
		v, err := partialParse(pi.ToUTF16(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := string(v.AppendJSON(nil)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
}
