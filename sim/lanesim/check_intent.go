package lanesim

import "github.com/frameproof/frameproof/sim/campaign"

// checkStreamOpen: unknown generation vs retry — a later attempt starts
// only after the previous reserved response settled (synthetic or not).
// intentChecker owns the last response each operation requested and the
// responses reserved by an acknowledged intent.
type intentChecker struct {
	r        *runner
	lastResp map[string]string
	// reserved are the response ids an acknowledged commit reserved
	// (reserve, from the porcupine history's commit ops)
	reserved map[string]bool
}

// reserve records that an acknowledged commit reserved resp (an
// effect_pending op state naming it); false when it was reserved before.
func (c *intentChecker) reserve(resp string) bool {
	if c.reserved[resp] {
		return false
	}
	c.reserved[resp] = true
	return true
}

func (c *intentChecker) streamOpen(s *simStream) {
	r := c.r
	// (an external finalization may already have ended the operation: the
	// request then runs for nothing and its appends are fenced)
	if !c.reserved[s.req.ResponseEntryID] {
		r.check(false, campaign.KindInvariant, "I1: provider request for %s without its committed intent", s.req.ResponseEntryID)
	} else {
		r.pass()
	}
	if prev := c.lastResp[s.req.OperationID]; prev != "" && prev != s.req.ResponseEntryID && s.req.Deferred == nil {
		found := false
		es, _ := r.ref.Entries()
		for _, e := range es {
			found = found || e.Entry.ID == prev
		}
		r.check(found || r.finalizer.finalized[s.req.OperationID], campaign.KindInvariant, "attempt for %s started before the earlier reserved response %s settled", s.req.ResponseEntryID, prev)
	}
	c.lastResp[s.req.OperationID] = s.req.ResponseEntryID
}
