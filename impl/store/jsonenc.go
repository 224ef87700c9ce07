package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/pi"
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

// isArrayIndexKey reports whether JS would order key as an integer-like
// property (canonical decimal below 2^32-1) ahead of string keys.
func isArrayIndexKey(key string) bool {
	if key == "" || len(key) > 10 {
		return false
	}
	if len(key) > 1 && key[0] == '0' {
		return false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 1<<32-1
}

// compactJSON validates raw as one JSON value and returns it compacted
// (without re-escaping), so that each record fits on one JSONL line.
func compactJSON(raw []byte) (json.RawMessage, error) {
	// json.Compact scans and rejects exactly what json.Valid does (one
	// pass instead of two); the output is at most len(raw) bytes
	buf := bytes.NewBuffer(make([]byte, 0, len(raw)))
	if err := json.Compact(buf, raw); err != nil {
		return nil, fmt.Errorf("not valid JSON")
	}
	return json.RawMessage(buf.Bytes()), nil
}
