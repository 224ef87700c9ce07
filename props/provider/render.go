package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
)

// sseEvent is one server-sent event before serialization.
type sseEvent struct {
	Name string // "event:" field, "" for none
	Data string
}

// blockEvents are the wire events of one content block, split so that
// consecutive tool calls can interleave their deltas.
type blockEvents struct {
	tool   bool
	start  []sseEvent
	deltas []sseEvent
	end    []sseEvent
}

// Rendered is a scenario as bytes on the wire.
type Rendered struct {
	Status int    // HTTP status (200 unless an HTTP failure)
	Body   []byte // the SSE stream (or the error body)
	Chunks []int  // absolute byte offsets at which the server flushes
	// Abort drops the connection after Body instead of ending the response.
	Abort bool
}

// jsonText marshals v like a provider's server would: no HTML escaping.
func jsonText(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("provider: render: marshal %T: %v", v, err)) // generator bug, not input
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func mustJSON(v any) string { return jsonText(v) }

// splitPieces cuts s into deltas of the given rune counts; the remainder is
// one final delta. Cuts never split a character.
func splitPieces(s string, pieces []int) []string {
	rs := []rune(s)
	var out []string
	for _, n := range pieces {
		if len(rs) == 0 {
			break
		}
		n = min(n, len(rs))
		out = append(out, string(rs[:n]))
		rs = rs[n:]
	}
	if len(rs) > 0 {
		out = append(out, string(rs))
	}
	return out
}

// textPieces splits a text or thinking body into the block's deltas: by
// runes, or by UTF-16 units (possibly halving a surrogate pair) when the
// block says so.
func textPieces(b TBlock, s string) []string {
	if !b.UTF16Pieces {
		return splitPieces(s, b.Pieces)
	}
	u := pi.ToUTF16(s)
	var out []string
	for _, n := range b.Pieces {
		if len(u) == 0 {
			break
		}
		n = min(n, len(u))
		out = append(out, pi.FromUTF16(u[:n]))
		u = u[n:]
	}
	if len(u) > 0 {
		out = append(out, pi.FromUTF16(u))
	}
	return out
}

// hasLoneSurrogate reports whether s holds a WTF-8 lone surrogate (ED A0..BF).
func hasLoneSurrogate(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			return true
		}
	}
	return false
}

// obj is an ordered JSON object, so rendered events keep the field order
// the providers' servers use.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(jsonText(f.k))
		buf.WriteByte(':')
		if raw, ok := f.v.(json.RawMessage); ok {
			buf.Write(raw)
			continue
		}
		if s, ok := f.v.(string); ok && hasLoneSurrogate(s) {
			buf.WriteString(pi.QuoteJSON(s)) // "\ud83d" escapes, as a JS server writes them
			continue
		}
		buf.WriteString(jsonText(f.v))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// assemble orders block events; with interleaving, each run of consecutive
// tool calls sends all starts, then deltas round-robin by order, then ends.
func assemble(blocks []blockEvents, tp Transport) []sseEvent {
	var out []sseEvent
	for i := 0; i < len(blocks); {
		j := i + 1
		if tp.Interleave && blocks[i].tool {
			for j < len(blocks) && blocks[j].tool {
				j++
			}
		}
		if j-i == 1 {
			b := blocks[i]
			out = append(append(append(out, b.start...), b.deltas...), b.end...)
			i = j
			continue
		}
		run := blocks[i:j]
		for _, b := range run {
			out = append(out, b.start...)
		}
		next := make([]int, len(run))
		step := 0
		for {
			var live []int
			for k := range run {
				if next[k] < len(run[k].deltas) {
					live = append(live, k)
				}
			}
			if len(live) == 0 {
				break
			}
			pick := 0
			if step < len(tp.Order) {
				pick = tp.Order[step]
			}
			step++
			k := live[pick%len(live)]
			out = append(out, run[k].deltas[next[k]])
			next[k]++
		}
		for _, b := range run {
			out = append(out, b.end...)
		}
		i = j
	}
	return out
}

// Render turns a scenario into the bytes a provider would send.
func Render(sc Scenario) (Rendered, error) {
	wire, err := impl.ParseWire(sc.Wire)
	if err != nil {
		return Rendered{}, err
	}
	tp := sc.Transport
	if tp.Failure == FailHTTP {
		status := tp.Status
		if status < 400 {
			status = 500
		}
		body := jsonText(obj{{"error", obj{{"type", "fuzz_error"}, {"message", fmt.Sprintf("injected HTTP %d", status)}}}})
		return Rendered{Status: status, Body: []byte(body)}, nil
	}
	var events []sseEvent
	var errEv, ping sseEvent
	switch wire {
	case impl.WireAnthropic:
		events = renderAnthropic(sc)
		errEv = sseEvent{"error", jsonText(obj{{"type", "error"}, {"error", obj{{"type", "overloaded_error"}, {"message", "Overloaded"}}}})}
		ping = sseEvent{"ping", `{"type": "ping"}`}
	case impl.WireOpenAIChat:
		events = renderChat(sc)
		errEv = sseEvent{"", jsonText(obj{{"error", obj{{"message", "The server had an error while processing your request."}, {"type", "server_error"}, {"code", nil}}}})}
	case impl.WireOpenAIResponses:
		events = renderResponses(sc)
		errEv = sseEvent{"error", jsonText(obj{{"type", "error"}, {"code", "server_error"}, {"message", "The server had an error."}, {"param", nil}})}
	case impl.WireGemini:
		events = renderGemini(sc)
		errEv = sseEvent{"", jsonText(obj{{"error", obj{{"code", 500}, {"message", "Internal error encountered."}, {"status", "INTERNAL"}}}})}
	default:
		return Rendered{}, fmt.Errorf("props/provider: no renderer for wire %q", wire)
	}
	if tp.Failure == FailErrorEvent {
		// The error replaces the stream's closing events (the provider never
		// got to send its stop reason).
		tail := map[impl.Wire]int{impl.WireAnthropic: 2, impl.WireOpenAIChat: 3, impl.WireOpenAIResponses: 1, impl.WireGemini: 1}[wire]
		if n := len(events) - tail; n <= 0 {
			events = []sseEvent{errEv}
		} else {
			at := max(tp.FailAt, 0) % n
			events = append(events[:at+1:at+1], errEv)
		}
	}
	body := serialize(events, tp, ping)
	if tp.Failure == FailDisconnect && len(body) > 0 {
		body = body[:len(body)*min(max(tp.FailAt, 0), 999)/1000]
	}
	return Rendered{Status: 200, Body: body, Chunks: chunkOffsets(len(body), tp.Cuts), Abort: tp.Failure == FailDisconnect}, nil
}

// serialize writes events as SSE, with keep-alives before the chosen events
// (a comment line when the wire has no ping event) and optional CRLF.
func serialize(events []sseEvent, tp Transport, ping sseEvent) []byte {
	nl := "\n"
	if tp.CRLF {
		nl = "\r\n"
	}
	pings := map[int]bool{}
	for _, p := range tp.Pings {
		pings[p] = true
	}
	var buf bytes.Buffer
	write := func(ev sseEvent) {
		if ev.Name != "" {
			buf.WriteString("event: " + ev.Name + nl)
		}
		buf.WriteString("data: " + ev.Data + nl + nl)
	}
	for i, ev := range events {
		if pings[i] {
			if ping.Data != "" {
				write(ping)
			} else {
				buf.WriteString(": keep-alive" + nl + nl)
			}
		}
		write(ev)
	}
	return buf.Bytes()
}

// chunkOffsets maps permille cuts to sorted distinct offsets inside (0,n).
func chunkOffsets(n int, cuts []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range cuts {
		off := n * min(max(c, 0), 1000) / 1000
		if off > 0 && off < n && !seen[off] {
			seen[off] = true
			out = append(out, off)
		}
	}
	sort.Ints(out)
	return out
}
