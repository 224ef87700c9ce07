package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store/internal/jsonstr"
)

// EncodeJSON encodes v as compact JSON the way JSON.stringify would for the
// same data: no HTML escaping (encoding/json.Marshal escapes <, >, & even in
// Marshaler output) and U+2028/U+2029 left as raw characters (encoding/json
// escapes them, JSON.stringify does not).
func EncodeJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("store: encode value: %w", err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return unescapeLineSeparators(out), nil
}

// unescapeLineSeparators turns the escapes \u2028 and \u2029 inside JSON
// strings back into raw UTF-8, leaving escaped backslashes alone.
func unescapeLineSeparators(in []byte) []byte {
	if !bytes.Contains(in, []byte(`\u202`)) {
		return in
	}
	out := make([]byte, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 >= len(in) {
			out = append(out, c)
			continue
		}
		// c starts an escape (the encoder never emits a bare backslash).
		if in[i+1] == 'u' && i+6 <= len(in) {
			switch string(in[i+2 : i+6]) {
			case "2028":
				out = utf8.AppendRune(out, '\u2028')
				i += 5
				continue
			case "2029":
				out = utf8.AppendRune(out, '\u2029')
				i += 5
				continue
			}
		}
		out = append(out, c, in[i+1])
		i++
	}
	return out
}

// AppendJSString appends s as a JSON string literal exactly as JSON.stringify
// writes it. It is pi.AppendQuote, named here for the JSONL record writer.
func AppendJSString(dst []byte, s string) []byte { return pi.AppendQuote(dst, s) }

// ObjectField is one top-level member of a JSON object, in source order.
type ObjectField struct {
	Key   string
	Value json.RawMessage
}

// ParseObject splits a JSON object into its top-level members in source
// order. Duplicate keys are an error (JSON.parse would silently keep the last
// value at the first position; frameproof refuses the ambiguity).
func ParseObject(raw []byte) ([]ObjectField, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var fields []ObjectField
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key is not a string")
		}
		if seen[key] {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		fields = append(fields, ObjectField{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(raw[dec.InputOffset():])) != 0 {
		return nil, fmt.Errorf("trailing data after object")
	}
	return fields, nil
}

// splitCompactObject is ParseObject for the output of compactJSON (valid
// JSON without insignificant space), which it scans directly instead of
// through encoding/json's Decoder and its Token and RawMessage copies: the
// same members and the same errors for such input. The values share
// compact's bytes. Keys with an escape or a non-ASCII byte are unquoted by
// encoding/json, as Token does.
func splitCompactObject(compact []byte) ([]ObjectField, error) {
	if len(compact) == 0 || compact[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	// room for a row's usual members at once instead of growing through
	// 1, 2 and 4
	return appendCompactObject(make([]ObjectField, 0, 8), compact)
}

// appendCompactObject is splitCompactObject appending to fields.
func appendCompactObject(fields []ObjectField, compact []byte) ([]ObjectField, error) {
	if len(compact) == 0 || compact[0] != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var seen KeySet
	var err error
	i := 1
	for compact[i] != '}' {
		if compact[i] == ',' {
			i++
		}
		end, _ := compactStringEnd(compact, i) // compact is valid: the literal ends
		key, plain := compact[i+1:end-1], true
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				plain = false
				break
			}
		}
		var k string
		if plain {
			k = internKey(key)
		} else if k, err = unquoteKey(compact[i:end]); err != nil {
			return nil, err
		}
		if seen.Add(k) {
			return nil, fmt.Errorf("duplicate key %q", k)
		}
		i = end + 1 // the ':'
		vend := skipCompactValue(compact, i)
		fields = append(fields, ObjectField{Key: k, Value: compact[i:vend:vend]})
		i = vend
	}
	return fields, nil
}

// unquoteKey decodes a key literal with escapes or non-ASCII bytes as
// node's JSON.parse does (JSUnquote: a lone surrogate stays one).
func unquoteKey(lit []byte) (string, error) {
	k, ok := JSUnquote(lit)
	if !ok {
		return "", fmt.Errorf("invalid key literal %.40s", lit)
	}
	return k, nil
}

// walkCompactObject calls member with each member's key literal (quotes
// included) and value of b, in order, and reports whether b is a JSON
// object validCompact accepts: validation and the split in one pass. It
// may have called member before it finds b invalid.
func walkCompactObject(b []byte, member func(key, value []byte)) bool {
	if len(b) < 2 || b[0] != '{' {
		return false
	}
	i := 1
	if b[i] == '}' {
		return len(b) == 2
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return false
		}
		kend, ok := compactStringEnd(b, i)
		if !ok || kend >= len(b) || b[kend] != ':' {
			return false
		}
		vend, ok := compactValueEnd(b, kend+1, 1)
		if !ok || vend >= len(b) {
			return false
		}
		member(b[i:kend], b[kend+1:vend])
		switch b[vend] {
		case ',':
			i = vend + 1
		case '}':
			return vend+1 == len(b)
		default:
			return false
		}
	}
}

// internKey is string(key), without an allocation for the members pi's
// rows and records usually have.
func internKey(key []byte) string {
	switch string(key) {
	case "id":
		return "id"
	case "parentId":
		return "parentId"
	case "type":
		return "type"
	case "customType":
		return "customType"
	case "message":
		return "message"
	case "timestamp":
		return "timestamp"
	case "usage":
		return "usage"
	case "entryId":
		return "entryId"
	case "adjustment":
		return "adjustment"
	case "details":
		return "details"
	case "data":
		return "data"
	case "summary":
		return "summary"
	case "input":
		return "input"
	case "output":
		return "output"
	case "cacheRead":
		return "cacheRead"
	case "cacheWrite":
		return "cacheWrite"
	case "totalTokens":
		return "totalTokens"
	case "cost":
		return "cost"
	case "total":
		return "total"
	}
	return string(key)
}

// skipCompactValue is the index after the value at b[i] of valid compact
// JSON.
func skipCompactValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		end, _ := compactStringEnd(b, i)
		return end
	case '{', '[':
		depth := 0
		for j := i; ; j++ {
			switch b[j] {
			case '"':
				end, _ := compactStringEnd(b, j)
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' {
		j++
	}
	return j
}

// isArrayIndexKey reports whether JS would order key as an integer-like
// property (canonical decimal below 2^32-1) ahead of string keys.
func isArrayIndexKey(key string) bool {
	if key == "" || len(key) > 10 {
		return false
	}
	if len(key) > 1 && key[0] == '0' {
		return false
	}
	// ParseUint in base 10 takes only digits: answer anything else here,
	// without the error it would allocate
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 1<<32-1
}

// compactJSON validates raw as one JSON value and returns it compacted
// (without re-escaping), so that each record fits on one JSONL line.
func compactJSON(raw []byte) (json.RawMessage, error) {
	// what writers commit is compact already: a copy is what json.Compact
	// would return
	if validCompact(raw) {
		out := make([]byte, len(raw))
		copy(out, raw)
		return out, nil
	}
	// json.Compact scans and rejects exactly what json.Valid does (one
	// pass instead of two); the output is at most len(raw) bytes
	buf := bytes.NewBuffer(make([]byte, 0, len(raw)))
	if err := json.Compact(buf, raw); err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	return json.RawMessage(buf.Bytes()), nil
}

// validCompact reports whether b is one JSON value json.Valid accepts with
// no space outside its strings, for which json.Compact returns b as it is.
// It may turn down such input (nesting deeper than maxCompactDepth), never
// accept other input: RFC 8259's grammar, as encoding/json's scanner reads
// it (any byte from 0x20 in a string, UTF-8 or not).
func validCompact(b []byte) bool {
	i, ok := compactValueEnd(b, 0, 0)
	return ok && i == len(b)
}

// maxCompactDepth bounds validCompact's recursion (encoding/json's own
// limit is 10000): deeper input takes json.Compact.
const maxCompactDepth = 256

// compactValueEnd is the index after the compact value at b[i], and
// whether there is one.
func compactValueEnd(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return compactStringEnd(b, i)
	case c == '{' || c == '[':
		if depth >= maxCompactDepth {
			return i, false
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		i++
		if i < len(b) && b[i] == end {
			return i + 1, true
		}
		for {
			var ok bool
			if c == '{' {
				if i >= len(b) || b[i] != '"' {
					return i, false
				}
				if i, ok = compactStringEnd(b, i); !ok || i >= len(b) || b[i] != ':' {
					return i, false
				}
				i++
			}
			if i, ok = compactValueEnd(b, i, depth+1); !ok || i >= len(b) {
				return i, false
			}
			switch b[i] {
			case ',':
				i++
			case end:
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return compactLiteralEnd(b, i, "true")
	case c == 'f':
		return compactLiteralEnd(b, i, "false")
	case c == 'n':
		return compactLiteralEnd(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return compactNumberEnd(b, i)
	}
	return i, false
}

func compactLiteralEnd(b []byte, i int, lit string) (int, bool) {
	if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return i, false
}

// compactStringEnd is the index after the string literal at b[i] ('"').
func compactStringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); {
		// straight to the first quote, backslash or control byte (the
		// text of a message is long runs of none)
		if j = jsonstr.PlainEnd(b, j); j >= len(b) {
			break
		}
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			if j+1 >= len(b) {
				return j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if len(b)-j < 6 || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return j, false
				}
				j += 6
			default:
				return j, false
			}
		default: // a control byte
			return j, false
		}
	}
	return len(b), false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// compactNumberEnd is the index after the number at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func compactNumberEnd(b []byte, i int) (int, bool) {
	digits := func(j int) int {
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(i + 1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}
