package lanesim

import (
	"errors"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/model/wire"
)

// wireChecker, at the end of a run, projects the final transcript for every
// wire and validates each request body with model/wire.
type wireChecker struct{ r *runner }

func (c *wireChecker) end() {
	r := c.r
	snap, err := r.ln.Snapshot()
	if err != nil {
		r.fail("wire", "final snapshot: %v", err)
		return
	}
	var lines []string
	for _, e := range snap.Transcript {
		v, err := r.parseJSON(e.Raw)
		if err != nil || v.Kind() != pi.Object {
			r.fail("wire", "transcript entry %s is not an object", e.ID)
			return
		}
		m, ok := v.ObjectValue().Get("message")
		if !ok {
			continue
		}
		raw, err := pi.Marshal(m)
		if err != nil {
			r.fail("wire", "transcript entry %s: %v", e.ID, err)
			return
		}
		lines = append(lines, string(raw))
	}
	if len(lines) == 0 {
		return
	}
	msgs, err := replay.DecodeTranscript(strings.Join(lines, "\n"))
	if err != nil {
		r.fail("wire", "final transcript does not decode: %v", err)
		return
	}
	for _, wn := range replay.Wires {
		body, err := replay.Project(msgs, replay.Target{Wire: wn, Provider: simProvider, Model: simModel}, replay.Options{})
		if errors.Is(err, replay.ErrNothingToSend) {
			continue
		}
		if !r.check(err == nil, "wire", "project the final transcript for %s: %v", wn, err) {
			return
		}
		err = wire.Validate(wn, body, wire.Options{Model: simModel})
		if !r.check(err == nil, "wire", "%s rejects the projected final transcript: %v\n%s", wn, err, body) {
			return
		}
	}
}
