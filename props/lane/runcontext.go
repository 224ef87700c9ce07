package lane

import (
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
