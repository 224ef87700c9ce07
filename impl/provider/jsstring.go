package provider

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// jsString is a wire string decoded as JavaScript decodes it. encoding/json
// turns a lone surrogate escape ("\ud83d", which Anthropic and OpenAI can
// send when a delta splits an astral character) into U+FFFD; pi.ParseJSON
// keeps it as WTF-8, so the next delta's low half re-joins the character
// (see pi.Concat) exactly as JS string concatenation does.
type jsString string

// UnmarshalJSON implements json.Unmarshaler; null leaves the value unchanged.
func (s *jsString) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	v, err := pi.ParseJSON(string(data))
	if err != nil {
		return fmt.Errorf("provider: string field: %w", err)
	}
	if v.Kind() != pi.String {
		return fmt.Errorf("provider: string field: got %s, want string", v.Kind())
	}
	*s = jsString(v.Str())
	return nil
}

// argsValue parses raw JSON arguments as JSON.parse does, keeping JS
// property order and lone surrogates; ok is false when raw is not complete
// JSON.
func argsValue(raw string) (pi.JSONValue, bool) {
	if raw == "" {
		return pi.JSONValue{}, false
	}
	v, err := pi.ParseJSON(raw)
	if err != nil {
		return pi.JSONValue{}, false
	}
	return v, true
}

// ArgsValue returns tool-call arguments as a pi.JSONValue. The adapters store
// pi.JSONValue; arguments decoded from JSON by encoding/json (map[string]any
// and friends) are converted through their JSON text, which loses their
// original key order (encoding/json sorts map keys). nil is undefined.
func ArgsValue(v any) pi.JSONValue {
	switch t := v.(type) {
	case nil:
		return pi.JSONValue{}
	case pi.JSONValue:
		return t
	case *pi.JSONValue:
		if t == nil {
			return pi.JSONValue{}
		}
		return *t
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return pi.JSONValue{}
	}
	out, err := pi.ParseJSON(string(raw))
	if err != nil {
		return pi.JSONValue{}
	}
	return out
}

// IsEmptyArgs reports whether tool arguments are absent or {}.
func IsEmptyArgs(v any) bool {
	a := ArgsValue(v)
	switch a.Kind() {
	case pi.Undefined:
		return true
	case pi.Object:
		return a.ObjectValue().Len() == 0
	}
	return false
}
