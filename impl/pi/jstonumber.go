package pi

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// IsJSWhiteSpace is the WhiteSpace and LineTerminator set String.prototype.trim removes.
func IsJSWhiteSpace(c uint16) bool {
	switch c {
	case '\t', '\n', 0x0B, 0x0C, '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return c >= 0x2000 && c <= 0x200A
}

// ToBoolean is JS ToBoolean for a JSON value: undefined, null, false, 0,
// NaN and "" are false; everything else, objects and arrays included, true.
func ToBoolean(v JSONValue) bool {
	switch v.Kind() {
	case Undefined, Null:
		return false
	case Bool:
		return v.Bool()
	case Number:
		return v.Number() != 0 && !math.IsNaN(v.Number())
	case String:
		return v.Str() != ""
	}
	return true
}

// ToNumber is JS ToNumber for a JSON value: objects and arrays go through
// ToPrimitive (their toString: "[object Object]" and join) first, so [] is
// 0, ["5"] is 5 and {} is NaN; undefined is NaN.
func ToNumber(v JSONValue) float64 {
	switch v.Kind() {
	case Null:
		return 0
	case Bool:
		if v.Bool() {
			return 1
		}
		return 0
	case Number:
		return v.Number()
	case String:
		return StringToNumber(v.Str())
	case Object, Array:
		return StringToNumber(JSString(v))
	}
	return math.NaN()
}

var jsDecimal = regexp.MustCompile(`^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$`)

// StringToNumber is StringToNumber: trimmed, "" is 0, decimal literals,
// ±Infinity and unsigned 0x/0o/0b integers; anything else is NaN.
func StringToNumber(s string) float64 {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= 0xFFFF && IsJSWhiteSpace(uint16(r)) })
	switch s {
	case "":
		return 0
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	if len(s) > 2 && s[0] == '0' {
		if base := radixOf(s[1]); base != 0 {
			n, ok := 0.0, true
			for _, c := range s[2:] {
				d, err := strconv.ParseUint(string(c), base, 8)
				if err != nil {
					ok = false
					break
				}
				n = n*float64(base) + float64(d)
			}
			if ok {
				return n
			}
			return math.NaN()
		}
	}
	if !jsDecimal.MatchString(s) {
		return math.NaN()
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return math.NaN()
	}
	return n
}

// radixOf is the base a 0x/0o/0b prefix letter names, or 0.
func radixOf(c byte) int {
	switch c {
	case 'x', 'X':
		return 16
	case 'o', 'O':
		return 8
	case 'b', 'B':
		return 2
	}
	return 0
}
