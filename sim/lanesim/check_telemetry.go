package lanesim

import (
	"github.com/frameproof/frameproof/impl/lane"

	"github.com/frameproof/frameproof/sim/campaign"
)

// telemetryChecker checks the lane's commit telemetry: a record of an
// acknowledged write carries the seq the store gave that write, so seqs
// grow from record to record and never pass the last acknowledged seq.
// (Telemetry is frameproof's, not pi's; a wrong seq misleads whoever
// traces commits with it.) Every lane process reports to the run's one
// checker (lane.Config.Telemetry), so seqs keep growing across restarts.
type telemetryChecker struct {
	r *runner
	// lastSeq is the seq of the last record checked
	lastSeq int64
}

func (c *telemetryChecker) record(rec lane.TelemetryRecord) {
	r := c.r
	if !r.alive() || rec.Failed {
		return
	}
	// r.check's count and failure, with the message's arguments boxed only
	// for a failure (for every record, they were an allocation each)
	r.checks++
	if !(rec.Seq > c.lastSeq && rec.Seq <= r.seqs.lastSeq) {
		r.fail(campaign.KindInvariant, "telemetry of %s %s %s/%s carries seq %d (previous record %d, last acknowledged %d)",
			rec.Kind, rec.Op, rec.Namespace, rec.Key, rec.Seq, c.lastSeq, r.seqs.lastSeq)
	}
	c.lastSeq = rec.Seq
}
