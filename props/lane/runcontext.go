package lane

import (
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"pgregory.net/rapid"
)

// drawRunContext draws the durable context a run's operation states carry
// (configuration, settings, stream options), so the model's op-state values
// are compared on more than one shape of each.
func drawRunContext(t *rapid.T, run *ml.Run) {
	run.ThinkingLevel = rapid.SampledFrom([]string{"off", "low", "high"}).Draw(t, "thinkingLevel")
	run.ActiveToolNames = rapid.SampledFrom([][]string{nil, {"read"}, {"read", "bash"}}).Draw(t, "activeTools")
	run.Settings = rapid.SampledFrom([]pi.JSONValue{{}, mustJSON(`{"steeringMode":"all","followUpMode":"one-at-a-time","toolExecution":"parallel"}`)}).Draw(t, "settings")
	run.StreamOptions = rapid.SampledFrom([]pi.JSONValue{{}, mustJSON(`{"maxTokens":4096,"temperature":0.5}`)}).Draw(t, "streamOptions")
}

func mustJSON(s string) pi.JSONValue {
	v, err := pi.ParseJSON(s)
	if err != nil {
		panic("props/lane: bad literal " + s + ": " + err.Error())
	}
	return v
}

// plannedToolResults are the result entry ids of the tools state the
// settlement just committed (ids the lane minted; none for other leaves).
func (d *driver) plannedToolResults() []string {
	cur := d.lane.Current()
	if cur == nil || cur.State.At != lane.LeafTools {
		return nil
	}
	ids := make([]string, len(cur.State.Calls))
	for i, c := range cur.State.Calls {
		ids[i] = c.ResultEntryID
	}
	return ids
}
