package replay

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// DecodeTranscript reads a transcript given as one JSON array of messages or
// as JSONL (one message per line, blank lines ignored). Errors name the
// array index or the 1-based line.
func DecodeTranscript(data string) ([]pi.Appender, error) {
	trimmed := strings.TrimLeft(data, " \t\r\n")
	if strings.HasPrefix(trimmed, "[") {
		v, err := pi.ParseJSON(data)
		if err != nil {
			return nil, fmt.Errorf("replay: transcript: %w", err)
		}
		out := make([]pi.Appender, 0, len(v.Array()))
		for i, e := range v.Array() {
			m, err := DecodeMessage(e, fmt.Sprintf("[%d]", i))
			if err != nil {
				return nil, fmt.Errorf("replay: transcript index %d: %w", i, err)
			}
			out = append(out, m)
		}
		return out, nil
	}
	var out []pi.Appender
	for n, line := range strings.Split(data, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		v, err := pi.ParseJSON(line)
		if err != nil {
			return nil, fmt.Errorf("replay: transcript line %d: %w", n+1, err)
		}
		m, err := DecodeMessage(v, "$")
		if err != nil {
			return nil, fmt.Errorf("replay: transcript line %d: %w", n+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// DecodeMessage decodes one message by its role.
func DecodeMessage(v pi.JSONValue, path string) (pi.Appender, error) {
	if v.Kind() != pi.Object {
		return nil, fmt.Errorf("%s: expected a message object, got %s", path, v.Kind())
	}
	role, ok := v.ObjectValue().Get("role")
	if !ok {
		return nil, fmt.Errorf("%s.role: missing (want user, assistant or toolResult)", path)
	}
	switch role.Str() {
	case "user":
		return pi.DecodeUserMessage(v, path)
	case "assistant":
		return pi.DecodeAssistantMessage(v, path)
	case "toolResult":
		return pi.DecodeToolResultMessage(v, path)
	}
	return nil, fmt.Errorf("%s.role: unsupported role %q (want user, assistant or toolResult)", path, role.Str())
}
