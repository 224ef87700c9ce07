package lanesim

import (
	"errors"
	"strings"
	"sync"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/model/wire"
	"github.com/frameproof/frameproof/sim/campaign"
)

// wireChecker, at the end of a run, projects the final transcript for every
// wire and validates each request body with model/wire.
type wireChecker struct{ r *runner }

func (c *wireChecker) end() {
	r := c.r
	snap, err := r.ln.Snapshot()
	if err != nil {
		r.fail(campaign.KindWire, "final snapshot: %v", err)
		return
	}
	if text, ok := c.messages(snap.Transcript); ok && text != "" {
		c.transcript(text)
	}
}

// messages is the transcript's messages, one a line (pi.Marshal of each,
// joined by newlines, written into one buffer): "" when no entry holds
// one; false (the run failed) when an entry is no object.
func (c *wireChecker) messages(es []lane.TranscriptEntry) (string, bool) {
	r := c.r
	var text []byte
	lines := 0
	for _, e := range es {
		v, err := r.memo.parseJSON(e.Raw)
		if err != nil || v.Kind() != pi.Object {
			r.fail(campaign.KindWire, "transcript entry %s is not an object", e.ID)
			return "", false
		}
		m, ok := v.ObjectValue().Get("message")
		if !ok {
			continue
		}
		if m.IsUndefined() {
			_, err := pi.Marshal(m) // the error Marshal gives it
			r.fail(campaign.KindWire, "transcript entry %s: %v", e.ID, err)
			return "", false
		}
		if lines > 0 {
			text = append(text, '\n')
		}
		text = m.AppendJSON(text)
		lines++
	}
	return string(text), true
}

// transcript checks one final transcript (its messages, one a line), or
// takes the verdict of a check of the same text: the check reads nothing
// else (replay's projections and model/wire's rules of the simulator's
// provider and model), so a text it passed once passes again with as many
// checks. A failing check is never remembered: it runs, and reports, again.
// A run with planted bugs neither reads nor writes the memo: a bug switch
// may change what the projections make of a text, and a mutant must meet
// the check itself, not a verdict of the unbroken code.
func (c *wireChecker) transcript(data string) {
	r := c.r
	if len(r.opts.Bugs) > 0 {
		c.check(data)
		return
	}
	if n, ok := wireVerdicts.get(data); ok {
		r.checks += n
		return
	}
	failed, before := r.failed, r.checks
	c.check(data)
	if !failed && !r.failed {
		wireVerdicts.put(data, r.checks-before)
	}
}

// check is the wire check of a transcript text.
func (c *wireChecker) check(data string) {
	r := c.r
	msgs, err := replay.DecodeTranscript(data)
	if err != nil {
		r.fail(campaign.KindWire, "final transcript does not decode: %v", err)
		return
	}
	for _, wn := range replay.Wires {
		body, err := replay.Project(msgs, replay.Target{Wire: wn, Provider: simProvider, Model: simModel}, replay.Options{})
		if errors.Is(err, replay.ErrNothingToSend) {
			continue
		}
		if !r.check(err == nil, campaign.KindWire, "project the final transcript for %s: %v", wn, err) {
			return
		}
		err = wire.Validate(wn, body, wire.Options{Model: simModel})
		if !r.check(err == nil, campaign.KindWire, "%s rejects the projected final transcript: %v\n%s", wn, err, body) {
			return
		}
		if !c.resultsCross(wn, msgs, body) {
			return
		}
	}
}

// resultsCross checks that every tool result of the transcript that answers
// a call of a settled response crosses the wire as that call's result
// (replay binds the first result of each live call next to it): an object
// of the body that references its call id (Gemini: a functionResponse,
// which names results by tool) carries its text.
func (c *wireChecker) resultsCross(wn string, msgs []pi.Appender, body []byte) bool {
	want := boundResults(msgs)
	if len(want) == 0 {
		return true
	}
	v, err := c.r.memo.parseJSON(body)
	if !c.r.check(err == nil, campaign.KindWire, "%s body does not parse: %v", wn, err) {
		return false
	}
	refs := map[string][]string{} // call id -> the objects answering it
	var responses []string
	walkJSON(v, func(o *pi.JSONObject) {
		if id := resultRef(o); id != "" {
			refs[id] = append(refs[id], string(pi.ObjectValue(o).AppendJSON(nil)))
		}
		if fr, ok := o.Get("functionResponse"); ok {
			responses = append(responses, string(fr.AppendJSON(nil)))
		}
	})
	for _, res := range want {
		cands := refs[res.ToolCallID]
		if wn == replay.WireGemini {
			cands = responses
		}
		if !c.r.check(carries(cands, res), campaign.KindWire, "%s: the tool result for call %s (%q) is not in the request\n%s", wn, res.ToolCallID, firstText(res), body) {
			return false
		}
	}
	return true
}

// resultRef is the call id a result object of a wire answers ("" if none).
func resultRef(o *pi.JSONObject) string {
	for _, k := range []string{"tool_call_id", "tool_use_id"} {
		if id, ok := o.Get(k); ok && id.Kind() == pi.String {
			return id.Str()
		}
	}
	if t, ok := o.Get("type"); ok && t.Kind() == pi.String && t.Str() == "function_call_output" {
		if id, ok := o.Get("call_id"); ok && id.Kind() == pi.String {
			return id.Str()
		}
	}
	return ""
}

func firstText(r *pi.ToolResultMessage) string {
	for _, b := range r.Content {
		if t, ok := b.(pi.TextContent); ok && t.Text != "" {
			return t.Text
		}
	}
	return ""
}

// carries: one of the objects holds the result's first text (escaped as
// in JSON), or any object when the result has none.
func carries(objs []string, r *pi.ToolResultMessage) bool {
	q := string(pi.AppendQuote(nil, firstText(r)))
	needle := q[1 : len(q)-1]
	for _, o := range objs {
		if strings.Contains(o, needle) {
			return true
		}
	}
	return false
}

// boundResults are the transcript's tool results that answer a call of an
// earlier settled assistant message (first result per call).
func boundResults(msgs []pi.Appender) []*pi.ToolResultMessage {
	live, bound := map[string]bool{}, map[string]bool{}
	var ids []*pi.ToolResultMessage
	for _, m := range msgs {
		switch x := m.(type) {
		case *pi.AssistantMessage:
			if x.StopReason != pi.StopStop && x.StopReason != pi.StopLength && x.StopReason != pi.StopToolUse {
				continue
			}
			for _, b := range x.Content {
				if tc, ok := b.(pi.ToolCall); ok && tc.ID != "" {
					live[tc.ID] = true
				}
			}
		case *pi.ToolResultMessage:
			if live[x.ToolCallID] && !bound[x.ToolCallID] {
				bound[x.ToolCallID] = true
				ids = append(ids, x)
			}
		}
	}
	return ids
}

// walkJSON calls f on every object in v.
func walkJSON(v pi.JSONValue, f func(*pi.JSONObject)) {
	switch v.Kind() {
	case pi.Object:
		o := v.ObjectValue()
		f(o)
		for _, k := range o.Keys() {
			child, _ := o.Get(k)
			walkJSON(child, f)
		}
	case pi.Array:
		for _, e := range v.Array() {
			walkJSON(e, f)
		}
	}
}

// verdicts remembers, by transcript text, the number of checks of a wire
// check that passed them all (wireChecker.transcript). Runs of a campaign
// share it (the same seed on another backend often ends with the same
// transcript): it keeps the latest texts up to maxBytes of them, none
// longer than maxText.
type verdicts struct {
	maxBytes, maxText int
	mu                sync.Mutex
	n                 map[string]int
	order             []string // oldest first
	bytes             int
}

// wireVerdicts are the wire check's verdicts of this process.
var wireVerdicts = &verdicts{maxBytes: maxVerdictBytes, maxText: maxVerdictText}

// the bounds of wireVerdicts (the default campaign's final transcripts
// are about 1 KB)
const maxVerdictBytes, maxVerdictText = 4 << 20, 64 << 10

func (v *verdicts) get(data string) (int, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n, ok := v.n[data]
	return n, ok
}

func (v *verdicts) put(data string, checks int) {
	if len(data) > v.maxText {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.n[data]; ok {
		return
	}
	if v.n == nil {
		v.n = map[string]int{}
	}
	for len(v.order) > 0 && v.bytes+len(data) > v.maxBytes {
		old := v.order[0]
		v.order = v.order[1:]
		v.bytes -= len(old)
		delete(v.n, old)
	}
	v.n[data] = checks
	v.order = append(v.order, data)
	v.bytes += len(data)
}
