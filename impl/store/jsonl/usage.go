package jsonl

import "errors"

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
	// The scanner accepted the line, so the object scans again; its
	// members go to a scratch list, as p.members holds the records'.
	_, ms, _ := p.sc.object(m.vs, p.scratch[:0])
	p.scratch = ms
	for j := len(ms) - 1; j >= 0; j-- { // the last duplicate wins, as in JSON.parse
		if p.keyIs(ms[j], "cost") {
			if string(p.raw(ms[j])) == "null" {
				return errUsageNull
			}
			return nil
		}
	}
	return errUsageUndefined
}
