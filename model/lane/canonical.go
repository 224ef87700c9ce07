package lane

import (
	"strconv"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
)

// isCanonical reports whether s is already the text Canonical gives for
// it: JSON.stringify(JSON.parse(s)) == s. It answers true only for texts
// in the one form JSON.stringify writes, read from its rules: no
// whitespace; strings with raw characters except \" \\ \b \f \n \r \t and
// lowercase \u00XX for the other controls (a valid UTF-8 character is
// written raw, an invalid byte or a surrogate is not); numbers as
// Number::toString writes their value (an integer of at most 15 digits,
// else the text pi.NumberValue writes for the parsed value); objects whose
// keys are none integer-like (JS enumerates those first) and none repeated
// (JSON.parse keeps the first place and the last value). Anything else
// (false) is left to the parse and serialization; so is a text nested
// deeper than canonicalDepth or with an object of more than
// canonicalMembers members.
func isCanonical(s string) bool {
	c := canonicalScan{s: s}
	return c.value(0) && c.i == len(s)
}

const (
	canonicalDepth   = 64
	canonicalMembers = 32
)

type canonicalScan struct {
	s string
	i int
}

func (c *canonicalScan) value(depth int) bool {
	if c.i >= len(c.s) || depth > canonicalDepth {
		return false
	}
	switch b := c.s[c.i]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		c.i++
		if c.i < len(c.s) && c.s[c.i] == ']' {
			c.i++
			return true
		}
		for {
			if !c.value(depth + 1) {
				return false
			}
			if more, ok := c.after(']'); !more {
				return ok
			}
		}
	case b == '"':
		_, ok := c.str()
		return ok
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	case b == 't':
		return c.word("true")
	case b == 'f':
		return c.word("false")
	case b == 'n':
		return c.word("null")
	}
	return false
}

func (c *canonicalScan) word(w string) bool {
	if len(c.s)-c.i >= len(w) && c.s[c.i:c.i+len(w)] == w {
		c.i += len(w)
		return true
	}
	return false
}

func (c *canonicalScan) object(depth int) bool {
	c.i++ // '{'
	if c.i < len(c.s) && c.s[c.i] == '}' {
		c.i++
		return true
	}
	var keys [canonicalMembers]string
	n := 0
	for {
		if c.i >= len(c.s) || c.s[c.i] != '"' || n == canonicalMembers {
			return false
		}
		key, ok := c.str()
		if !ok || integerLike(key) {
			return false
		}
		// a canonical string has one text: equal texts are equal keys
		for _, k := range keys[:n] {
			if k == key {
				return false
			}
		}
		keys[n] = key
		n++
		if c.i >= len(c.s) || c.s[c.i] != ':' {
			return false
		}
		c.i++
		if !c.value(depth + 1) {
			return false
		}
		if more, ok := c.after('}'); !more {
			return ok
		}
	}
}

// after reads what follows a member or element: a comma (more to come),
// or the container's close (done, ok); anything else is not canonical.
func (c *canonicalScan) after(close byte) (more, ok bool) {
	if c.i >= len(c.s) {
		return false, false
	}
	switch c.s[c.i] {
	case ',':
		c.i++
		return true, true
	case close:
		c.i++
		return false, true
	}
	return false, false
}

// integerLike: a key of digits only (every integer-like key is one; the
// rest are turned down too, which only costs the slow path).
func integerLike(quoted string) bool {
	body := quoted[1 : len(quoted)-1]
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		if body[i] < '0' || body[i] > '9' {
			return false
		}
	}
	return true
}

// str reads a string in JSON.stringify's form at c.i (a '"') and returns
// its text with the quotes.
func (c *canonicalScan) str() (string, bool) {
	start := c.i
	c.i++
	for c.i < len(c.s) {
		b := c.s[c.i]
		switch {
		case b == '"':
			c.i++
			return c.s[start:c.i], true
		case b == '\\':
			if c.i+1 >= len(c.s) {
				return "", false
			}
			switch c.s[c.i+1] {
			case '"', '\\', 'b', 'f', 'n', 'r', 't':
				c.i += 2
			case 'u':
				// only a control without a short form: \u00XX, lowercase
				if c.i+6 > len(c.s) || c.s[c.i+2:c.i+4] != "00" {
					return "", false
				}
				hi, lo := c.s[c.i+4], c.s[c.i+5]
				if hi != '0' && hi != '1' {
					return "", false
				}
				v := int(hi - '0')
				switch {
				case lo >= '0' && lo <= '9':
					v = v<<4 | int(lo-'0')
				case lo >= 'a' && lo <= 'f':
					v = v<<4 | int(lo-'a'+10)
				default:
					return "", false
				}
				if v == '\b' || v == '\t' || v == '\n' || v == '\f' || v == '\r' {
					return "", false
				}
				c.i += 6
			default:
				return "", false
			}
		case b < 0x20:
			return "", false
		case b < utf8.RuneSelf:
			c.i++
		default:
			_, size := utf8.DecodeRuneInString(c.s[c.i:])
			if size == 1 { // not UTF-8 (Go's decoder also refuses surrogates)
				return "", false
			}
			c.i += size
		}
	}
	return "", false
}

// number reads a number token at c.i written as JS writes its value.
func (c *canonicalScan) number() bool {
	start := c.i
	if c.s[c.i] == '-' {
		c.i++
	}
	digits := c.i
	for c.i < len(c.s) && c.s[c.i] >= '0' && c.s[c.i] <= '9' {
		c.i++
	}
	intDigits := c.i - digits
	if intDigits == 0 || (intDigits > 1 && c.s[digits] == '0') {
		return false
	}
	simple := c.i == len(c.s) || (c.s[c.i] != '.' && c.s[c.i] != 'e' && c.s[c.i] != 'E')
	if simple && intDigits <= 15 {
		// an exact integer below 1e21: its decimal digits, but -0 is "0"
		return !(c.s[start] == '-' && c.s[digits] == '0')
	}
	for c.i < len(c.s) {
		b := c.s[c.i]
		if (b < '0' || b > '9') && b != '.' && b != 'e' && b != 'E' && b != '+' && b != '-' {
			break
		}
		c.i++
	}
	tok := c.s[start:c.i]
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		return false
	}
	var buf [32]byte
	return string(pi.NumberValue(f).AppendJSON(buf[:0])) == tok
}
