package jsonl

import (
	"encoding/json"
	"errors"
)

// pi's applyValidated (in-memory-storage-state.ts) folds every usage row into
// the session totals with utils/usage.ts addUsage(stats.usage, row.usage),
// which reads right.input and then right.cost.input. A row whose usage is
// undefined or null, or whose usage.cost is, throws a TypeError there, and
// JsonlStorage.open reports the line; any other value (numbers, strings,
// members of any type) adds up to NaN or junk without throwing.
var (
	errUsageUndefined = errors.New("Cannot read properties of undefined (reading 'input')")
	errUsageNull      = errors.New("Cannot read properties of null (reading 'input')")
)

// usageApplyError is what addUsage throws for record r's usage member, nil
// when it folds.
func (p *lineParser) usageApplyError(r record) error {
	m, ok := p.find(r, "usage")
	if !ok {
		return errUsageUndefined
	}
	raw := p.raw(m)
	switch raw[0] {
	case 'n':
		return errUsageNull
	case '{':
	default: // a number, string, boolean or array has no cost member
		return errUsageUndefined
	}
	var members map[string]json.RawMessage // the last duplicate wins, as in JSON.parse
	if err := json.Unmarshal(raw, &members); err != nil {
		return err // unreachable: the scanner accepted the line
	}
	cost, ok := members["cost"]
	switch {
	case !ok:
		return errUsageUndefined
	case string(cost) == "null":
		return errUsageNull
	}
	return nil
}
