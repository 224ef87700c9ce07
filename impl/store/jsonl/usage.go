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
	// The scanner accepted the line, so the object's members are walked
	// without checking them again.
	vs, ve, found := p.sc.lastMember(m.vs, "cost")
	switch {
	case !found:
		return store.ErrUsageUndefined
	case string(p.sc.b[vs:ve]) == "null":
		return store.ErrUsageNull
	}
	return nil
}
