package store

import (
	"encoding/json"
	"errors"
)

// pi folds every usage row into the session totals as it applies a commit
// (in-memory-storage-state.ts applyValidated → utils/usage.ts
// addUsage(stats.usage, row.usage)), reading row.usage.input and then
// row.usage.cost.input. A row whose usage is undefined or null, or whose
// usage.cost is, throws a TypeError there; any other value adds up to NaN
// or junk without throwing. These are the TypeError messages.
var (
	ErrUsageUndefined = errors.New("Cannot read properties of undefined (reading 'input')")
	ErrUsageNull      = errors.New("Cannot read properties of null (reading 'input')")
)

// UsageFoldError is what addUsage throws for a usage row whose "usage"
// member is usage (nil when the row has none), or nil when it folds.
func UsageFoldError(usage json.RawMessage) error {
	if len(usage) == 0 {
		return ErrUsageUndefined
	}
	switch usage[0] {
	case 'n':
		return ErrUsageNull
	case '{':
	default: // a number, string, boolean or array has no cost member
		return ErrUsageUndefined
	}
	cost, ok, err := member(usage, "cost")
	if err != nil {
		return err
	}
	switch {
	case !ok:
		return ErrUsageUndefined
	case string(cost) == "null":
		return ErrUsageNull
	}
	return nil
}

// CheckUsageTotals refuses a commit holding a usage row whose fold into the
// totals pi's addUsage would throw on, with pi's TypeError message. pi
// throws it after the commit is durable (JsonlStorage appends the line,
// then applies it), leaving a session it cannot reopen (JsonlStorage.open
// folds the same row and throws again); frameproof refuses the commit
// before anything is written instead, so committed data stays openable.
// Backends call it after ValidateCommitted, where pi's apply would run.
func CheckUsageTotals(writes []CommittedWrite) error {
	for _, w := range writes {
		if w.Kind != WriteUsage {
			continue
		}
		usage, _, err := member(w.Usage.Raw, "usage")
		if err != nil {
			return err // unreachable: Prepare checked the row is one object
		}
		if err := UsageFoldError(usage); err != nil {
			return err
		}
	}
	return nil
}

// member is the value of the JSON object obj's member key, as
// json.Unmarshal into a map of raw values finds it (the last duplicate
// wins, as in JSON.parse). A compact object without repeated keys (what
// Prepare commits) is split in place (splitCompactObject: the same keys
// and the same value bytes); anything else is decoded into the map as
// before.
func member(obj json.RawMessage, key string) (json.RawMessage, bool, error) {
	if validCompact(obj) {
		if fields, err := splitCompactObject(obj); err == nil {
			for _, f := range fields {
				if f.Key == key {
					return f.Value, true, nil
				}
			}
			return nil, false, nil
		}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(obj, &members); err != nil {
		return nil, false, err
	}
	v, ok := members[key]
	return v, ok, nil
}
