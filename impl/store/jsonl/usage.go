package jsonl

import "github.com/frameproof/frameproof/impl/store"

// usageApplyError is what pi's applyValidated throws folding record r's
// usage member into the totals (store.UsageFoldError), nil when it folds.
func (p *lineParser) usageApplyError(r record) error {
	m, ok := p.find(r, "usage")
	if !ok {
		return store.UsageFoldError(nil)
	}
	return store.UsageFoldError(p.raw(m))
}
