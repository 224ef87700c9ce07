package pi

import (
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// oldStr is str before its 8-byte steps: it parses a string literal at p.i (which is '"').
func (p *jsonParser) oldStr() (string, error) {
	p.i++
	start := p.i
	// Fast path: plain ASCII/UTF-8 with no escapes, no controls and no
	// surrogate forms that could need re-joining.
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			s := p.s[start:p.i]
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		if c >= utf8.RuneSelf {
			r, n := decodeUnit(p.s, p.i)
			if (r >= 0xD800 && r <= 0xDFFF) || (r == utf8.RuneError && n == 1) {
				break
			}
			p.i += n
			continue
		}
		p.i++
	}
	buf := make([]byte, 0, p.i-start+16)
	buf = append(buf, p.s[start:p.i]...)
	for {
		if p.i >= len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), nil
		case c < 0x20:
			return "", p.fail("bad control character in string literal")
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.fail("unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if p.i+4 > len(p.s) {
					return "", p.fail("bad Unicode escape")
				}
				var r rune
				for k := 0; k < 4; k++ {
					h := hexVal(p.s[p.i+k])
					if h < 0 {
						return "", p.fail("bad Unicode escape")
					}
					r = r<<4 | h
				}
				p.i += 4
				buf = AppendCodeUnit(buf, r)
			default:
				p.i -= 2
				return "", p.fail("bad escaped character")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.i++
		default:
			r, n := decodeUnit(p.s, p.i)
			buf = AppendCodeUnit(buf, r)
			p.i += n
		}
	}
}

// TestStrMatchesByteLoop: str with its 8-byte steps parses every string
// literal as the byte loop did: the same value, the same end, the same
// error (plain runs of every length around escapes, controls, quotes,
// non-ASCII, surrogate escapes and invalid UTF-8; closed or not).
func TestStrMatchesByteLoop(t *testing.T) {
	check := func(t interface{ Fatalf(string, ...any) }, in string) {
		p := getParser(in)
		got, err := p.str()
		end := p.i
		p.release()
		q := getParser(in)
		want, wantErr := q.oldStr()
		wantEnd := q.i
		q.release()
		if got != want || end != wantEnd || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Fatalf("str(%q) = %q, end %d, %v; want %q, end %d, %v", in, got, end, err, want, wantEnd, wantErr)
		}
	}
	// every special byte at every place of an 8-byte window, after and
	// before plain runs of every length up to two windows
	for _, tok := range []string{`"`, `\\`, `\"`, `\u00e9`, `\ud83d\ude00`, "\x01", "\x1f", "\t", "\x7f", "é", "😀", "\xff", "\xed\xa0\x80", "\xc3", ""} {
		for before := 0; before <= 17; before++ {
			for after := 0; after <= 17; after++ {
				body := strings.Repeat("a", before) + tok + strings.Repeat("b", after)
				check(t, `"`+body+`"`)
				check(t, `"`+body)
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		body := rapid.StringMatching(`([a-z ]{0,12}|\\\\|\\"|\\u00e9|\\ud83d|\\ude00|\x01|\t|é|😀){0,8}`).Draw(t, "body")
		if rapid.Bool().Draw(t, "raw bytes") {
			// bytes no regexp draws: invalid UTF-8, a raw surrogate
			at := rapid.IntRange(0, len(body)).Draw(t, "at")
			body = body[:at] + rapid.SampledFrom([]string{"\xff", "\xed\xa0\x80", "\xc3"}).Draw(t, "bytes") + body[at:]
		}
		in := `"` + body
		if rapid.Bool().Draw(t, "closed") {
			in += `"` + rapid.SampledFrom([]string{"", ",", " 1", `"`}).Draw(t, "tail")
		}
		check(t, in)
	})
}
