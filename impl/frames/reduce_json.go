package frames

import (
	"slices"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// ReduceJSON is ReduceValues over stored frames given as their JSON bytes
// (JSON.parse of each, then reduceAssistantMessageFrames): what recovery
// does with a frame log read back from storage. Runs of delta frames on one
// block take appendRun; every other frame takes ApplyJSON.
//
// Its literals are decoded into the message's strings. Where the message
// is wanted as JSON (the stored round trip `frameproof bench --family
// codec` times against pi-ai), AppendReducedJSON skips the decoding and
// the encoding back; see there for what bounds the speed.
func ReduceJSON(frames [][]byte) (pi.JSONValue, error) {
	r := NewValueReducer()
	if err := r.applyStored(frames); err != nil {
		return pi.JSONValue{}, err
	}
	return r.Finish()
}

// applyStored applies every frame of a stored frame list.
func (r *ValueReducer) applyStored(frames [][]byte) error {
	for i := 0; i < len(frames); i++ {
		i += r.appendRun(frames[i:])
		if i == len(frames) {
			break
		}
		if err := r.ApplyJSON(frames[i]); err != nil {
			return err
		}
	}
	return nil
}

// ApplyJSON is Apply(pi.ParseJSON(frame)) for one stored frame's JSON: a
// syntax error is pi.ParseJSON's. Delta frames in the shape the encoder
// writes them take a byte-level path that appends the decoded delta to the
// block without building a JSON value, and text and thinking start frames
// in its shape one that builds the block directly (applyBlockStart); every
// other frame, and any such frame that differs from that shape in one
// byte, takes the general path. Both give the same state, result and
// error.
func (r *ValueReducer) ApplyJSON(frame []byte) error {
	if d, ok := parseDeltaFrame(frame); ok && pi.ToBoolean(r.message) {
		if done, err := r.applyDelta(d); done {
			return err
		}
	}
	if done, err := r.applyBlockStart(frame); done {
		return err
	}
	if r.bodies {
		if head, tail, ok := rawStart(frame); ok {
			return r.startRaw(head, tail)
		}
	}
	v, err := pi.ParseJSON(string(frame))
	if err != nil {
		return err
	}
	r.owned = true
	err = r.Apply(v)
	r.owned = false
	return err
}

// applyDelta is apply for a delta frame parseDeltaFrame matched, which
// holds the object {type, contentIndex, delta}: done is false when the
// delta's literal is outside the fast shape (the general path decides
// then, even on an error the reducer's checks found first: the frame may
// not even be JSON). Its checks' side effects are the general path's own.
func (r *ValueReducer) applyDelta(d deltaFrame) (done bool, err error) {
	acc, err := r.deltaTarget(d.typ, d.index)
	if err != nil {
		return validLiteral(d.raw), err
	}
	if !acc.isStr {
		// `undefined += "x"` and the like: the general JS addition.
		s, ok := decodeLiteral(nil, d.raw)
		if ok {
			err = acc.add(pi.StringValue(string(s)))
		}
		return ok, err
	}
	if r.bodies && acc.escape(&r.spare) {
		if canonicalBody(d.raw) {
			acc.buf = append(growFor(acc.buf, len(d.raw)), d.raw...)
			return true, nil
		}
		// In the fast shape but not JSON.stringify's (\/): decoded, it
		// holds no surrogate, so its body appends.
		s, ok := decodeLiteral(nil, d.raw)
		if ok {
			acc.buf = appendBody(acc.buf, string(s))
		}
		return ok, nil
	}
	// The fast shape never holds a surrogate (escaped or raw), so no pair
	// can join across the boundary and appendJS's rejoining is not needed.
	acc.buf, done = decodeLiteral(acc.buf, d.raw)
	return done, nil
}

// appendRun appends the deltas of the frames that open frames while they
// are delta frames in the fast shape on the block the last frame went to,
// and returns how many it took. activeBlock's checks still hold there: the
// index passed them, a block's kind never changes and only an end frame
// ends it. The frames are matched by their bytes against the block's
// delta prefix. For AppendReducedJSON their literals are copied onto the
// block's body (copyBodies); otherwise the run is measured first, so the
// buffer grows once (the literals' length bounds the decoded text), then
// decoded, up to the first literal outside the fast shape.
func (r *ValueReducer) appendRun(frames [][]byte) int {
	st := r.last
	if st == nil || st.ended || (st.kind != "toolCall" && !st.texting) {
		return 0
	}
	acc := &st.text
	if st.kind == "toolCall" {
		acc = &st.json
	}
	if !acc.isStr {
		return 0
	}
	prefix := st.deltaPrefix(r.lastIndex)
	if r.bodies && acc.escape(&r.spare) {
		return acc.copyBodies(frames, prefix, r.lits)
	}
	p, run, size := len(prefix), 0, 0
	for ; run < len(frames); run++ {
		b := frames[run]
		end := len(b) - 2
		if end < p || string(b[:p]) != string(prefix) || b[end] != '"' || b[end+1] != '}' {
			break
		}
		size += end - p
	}
	buf, n := slices.Grow(acc.buf, size), 0
	for ; n < run; n++ {
		b := frames[n]
		var ok bool
		if buf, ok = decodeLiteral(buf, b[p:len(b)-2]); !ok {
			break
		}
	}
	acc.buf = buf
	return n
}

// deltaPrefix is how the fast shape's delta frames on this block start, up
// to the delta's opening quote (made once per block).
func (st *valueBlock) deltaPrefix(index float64) []byte {
	if len(st.prefix) == 0 {
		typ := "toolcall_delta"
		switch st.kind {
		case "text":
			typ = "text_delta"
		case "thinking":
			typ = "thinking_delta"
		}
		p := append(growFor(st.prefix[:0], 72), deltaOpen...)
		p = strconv.AppendInt(append(append(p, typ...), deltaIndex...), int64(index), 10)
		st.prefix = append(p, deltaKey...)
	}
	return st.prefix
}

// deltaFrame is a delta frame parseDeltaFrame accepted. raw is what stands
// between the delta's quotes, not checked yet (decodeLiteral checks it).
type deltaFrame struct {
	typ   string
	index float64
	raw   []byte
}

// The fast shape, exactly as AppendFrame writes a delta frame (no
// whitespace, members in this order, nothing else):
//
//	{"type":"text_delta","contentIndex":7,"delta":"..."}
const (
	deltaOpen  = `{"type":"`
	deltaIndex = `","contentIndex":`
	deltaKey   = `,"delta":"`
)

// parseDeltaFrame matches the fast shape's envelope: a delta type, a
// contentIndex written as a plain non-negative integer below 2^53 (no sign,
// fraction, exponent or leading zero), the delta key, and `"}` ending the
// frame. The literal between is left to decodeLiteral. Whatever it rejects
// may still be valid; the general path reads it.
func parseDeltaFrame(b []byte) (deltaFrame, bool) {
	var d deltaFrame
	// Constant comparisons: the compiler turns them into a few word loads.
	if len(b) < len(deltaOpen)+len("text_delta")+len(deltaIndex) || string(b[:len(deltaOpen)]) != deltaOpen {
		return d, false
	}
	rest := b[len(deltaOpen):]
	switch {
	case string(rest[:len("text_delta")]) == "text_delta":
		d.typ, rest = "text_delta", rest[len("text_delta"):]
	case len(rest) >= len("thinking_delta") && string(rest[:len("thinking_delta")]) == "thinking_delta":
		d.typ, rest = "thinking_delta", rest[len("thinking_delta"):]
	case len(rest) >= len("toolcall_delta") && string(rest[:len("toolcall_delta")]) == "toolcall_delta":
		d.typ, rest = "toolcall_delta", rest[len("toolcall_delta"):]
	default:
		return d, false
	}
	if len(rest) < len(deltaIndex) || string(rest[:len(deltaIndex)]) != deltaIndex {
		return d, false
	}
	rest = rest[len(deltaIndex):]
	var ok bool
	if d.index, rest, ok = plainIndex(rest); !ok {
		return d, false
	}
	if len(rest) < len(deltaKey)+2 || string(rest[:len(deltaKey)]) != deltaKey || string(rest[len(rest)-2:]) != `"}` {
		return d, false
	}
	d.raw = rest[len(deltaKey) : len(rest)-2]
	return d, true
}

// plainIndex reads 0 or [1-9][0-9]{0,14} (every such number is a safe
// integer, exactly a float64).
func plainIndex(b []byte) (float64, []byte, bool) {
	n, i := 0, 0
	for i < len(b) && i < 16 && b[i] >= '0' && b[i] <= '9' {
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 || i > 15 || (b[0] == '0' && i > 1) {
		return 0, b, false
	}
	return float64(n), b[i:], true
}
