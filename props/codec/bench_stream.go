package codec

import "github.com/frameproof/frameproof/impl/pi"

// BenchStream is the side-by-side benchmark stream: one text block of at
// least size bytes streamed in 1–16 byte deltas (ASCII, '"', and 'é' or
// U+FFFD where a delta cuts it, so quoting and multi-byte text are
// exercised), the shape the durability design is built for.
// The partial stays small on purpose: both encoders read it, and shipping a
// growing partial per event to node would measure JSON transport, not the
// encoder. BenchmarkEncodeSideBySide and `frameproof bench --family codec`
// both run it.
func BenchStream(size int) []*pi.Event {
	partial := &pi.AssistantMessage{Content: []pi.Content{pi.TextContent{}}, API: "a", Provider: "p", Model: "m", StopReason: pi.StopPending}
	events := []*pi.Event{{Type: pi.EventStart, Partial: partial}, {Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: partial}}
	for total, k := 0, 0; total < size; k++ {
		n := 1 + (k*7)%16
		d := make([]byte, n)
		for i := range d {
			d[i] = "abcdefgh é\"\n"[i%12]
		}
		delta := pi.Normalize(string(d))
		events = append(events, &pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: delta, Partial: partial})
		total += len(delta)
	}
	return events
}
