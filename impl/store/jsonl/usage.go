package jsonl

import "github.com/frameproof/frameproof/impl/store"

// usageApplyError is what pi's applyValidated throws folding record r's
// usage member into the totals (store.UsageFoldError's rule and strings:
// addUsage reads usage.input, then usage.cost.input), nil when it folds. It
// reads the member with the line's scanner rather than decoding it.
func (p *lineParser) usageApplyError(r record) error {
	m, ok := p.find(r, "usage")
	if !ok {
		return store.ErrUsageUndefined
	}
	raw := p.raw(m)
	switch raw[0] {
	case 'n':
		return store.ErrUsageNull
	case '{':
	default: // a number, string, boolean or array has no cost member
		return store.ErrUsageUndefined
	}
	// The scanner accepted the line, so the object scans again; its
	// members go to a scratch list, as p.members holds the records'.
	_, ms, _ := p.sc.object(m.vs, p.scratch[:0])
	p.scratch = ms
	for j := len(ms) - 1; j >= 0; j-- { // the last duplicate wins, as in JSON.parse
		if p.keyIs(ms[j], "cost") {
			if string(p.raw(ms[j])) == "null" {
				return store.ErrUsageNull
			}
			return nil
		}
	}
	return store.ErrUsageUndefined
}
