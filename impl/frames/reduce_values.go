package frames

import "github.com/frameproof/frameproof/impl/pi"

// ReduceValues is reduceAssistantMessageFrames exactly as pi-ai 1.0.3 runs
// it on frames read back from storage: each frame is whatever JSON was
// stored. Frames of unknown type are ignored, fields are not validated, and
// the reducer's own reads and writes get JavaScript's semantics (a missing
// delta appends "undefined", a missing text_end content leaves the text
// undefined, a null content throws V8's TypeError). The result is the
// message pi-ai returns, as a JSON value (Undefined when pi-ai returns
// undefined), or the error it throws, with its message.
//
// Reduce is the strict reading of the same frames, typed by impl/pi; it
// rejects anything pi-ai's types do not allow and serves as a diagnostic.
func ReduceValues(frames []pi.JSONValue) (pi.JSONValue, error) {
	r := NewValueReducer()
	for _, f := range frames {
		if err := r.Apply(f); err != nil {
			return pi.JSONValue{}, err
		}
	}
	return r.Finish()
}

// ValueReducer is ReduceValues one frame at a time. After an error, or
// after Finish, it must not be used again.
type ValueReducer struct {
	message          pi.JSONValue
	frameBeforeStart pi.JSONValue
	states           map[float64]*valueBlock
	order            []float64 // states in insertion order (JS Map order)
	// last is the state activeAt found last (at lastIndex): delta frames
	// come in runs on one block, so most lookups skip the map.
	last      *valueBlock
	lastIndex float64
	// bodies: delta text is kept as JSON bodies where it can be
	// (jsAccum), for AppendReducedJSON; spare holds buffers for them.
	bodies bool
	spare  [][]byte
	// rawHead, rawTail: with bodies, a start frame rawStart read; the
	// message is then {content} alone, written between them.
	rawHead, rawTail []byte
	// rawMsg: the message object startRaw reuses; free: blocks to reuse
	// (a StoredReducer's, from its last list).
	rawMsg *pi.JSONObject
	free   []*valueBlock
	// freeObjects: block objects of a StoredReducer's last list that hold
	// two members, for applyBlockStart to reuse.
	freeObjects []*pi.JSONObject
	// lits: the literals copyBodies found canonical (a StoredReducer's).
	lits *literalCache
	// owned: the frame being applied was parsed for this reducer alone
	// (ApplyJSON), so what the reducer keeps of it needs no copy.
	owned bool
}

// clone is the copy pi-ai's reducer makes of what it keeps of a frame, so
// that the caller's frames are never mutated (none for an owned frame).
func (r *ValueReducer) clone(v pi.JSONValue) pi.JSONValue {
	if r.owned {
		return v
	}
	return pi.DeepClone(v)
}

// valueBlock is the reducer's state for one block a frame started.
type valueBlock struct {
	kind  string
	ended bool
	block *pi.JSONObject
	// text: the block's text/thinking member while deltas append to it.
	text    jsAccum
	texting bool
	// json: the tool call's JSON stream (checkpoint + deltas).
	json jsAccum
	// prefix: how this block's delta frames start in the fast shape.
	prefix []byte
}

// NewValueReducer returns an empty reducer.
func NewValueReducer() *ValueReducer {
	return &ValueReducer{states: map[float64]*valueBlock{}}
}

// Apply adds one stored frame.
func (r *ValueReducer) Apply(frame pi.JSONValue) error {
	typ, err := jsGet(frame, "type")
	if err != nil {
		return err
	}
	if typ.Kind() == pi.String && typ.Str() == "start" {
		if err := r.startCheck(); err != nil {
			return err
		}
		partial, _ := jsGet(frame, "partial")
		r.message = r.clone(partial)
		return nil
	}
	if !pi.ToBoolean(r.message) {
		if k := r.frameBeforeStart.Kind(); k == pi.Undefined || k == pi.Null {
			r.frameBeforeStart = typ
		}
		return nil
	}
	if typ.Kind() != pi.String {
		return nil
	}
	return r.apply(typ.Str(), frame.ObjectValue())
}

// startCheck is the start frame's checks: no message yet, and no frame
// before it.
func (r *ValueReducer) startCheck() error {
	if pi.ToBoolean(r.message) {
		return fail("Assistant message frame sequence contains more than one start frame")
	}
	if !r.frameBeforeStart.IsUndefined() {
		typ, err := jsString(r.frameBeforeStart)
		if err != nil {
			return err
		}
		return fail("%s frame appears before the start frame", typ)
	}
	return nil
}

// apply handles one non-start frame; frame is an object (only objects have
// a string "type").
func (r *ValueReducer) apply(typ string, frame *pi.JSONObject) error {
	get := func(key string) pi.JSONValue { v, _ := frame.Get(key); return v }
	index := get("contentIndex")
	switch typ {
	case "text_start", "thinking_start", "toolcall_start":
		key, kind := "content", map[string]string{"text_start": "text", "thinking_start": "thinking", "toolcall_start": "toolCall"}[typ]
		if typ == "toolcall_start" {
			key = "toolCall"
		}
		content := get(key)
		ctype, err := jsGet(content, "type")
		if err != nil {
			return err
		}
		if ctype.Kind() != pi.String || ctype.Str() != kind {
			found, err := jsString(ctype)
			if err != nil {
				return err
			}
			return fail("%s frame contains %s content", typ, found)
		}
		return r.appendBlock(index, content, kind)
	case "text_delta", "thinking_delta", "toolcall_delta":
		i, err := assertIndex(index)
		if err != nil {
			return err
		}
		acc, err := r.deltaTarget(typ, i)
		if err != nil {
			return err
		}
		return acc.add(get("delta"))
	case "text_end":
		return r.end(index, "text", typ, get("content"), []string{"textSignature"}, get)
	case "thinking_end":
		return r.end(index, "thinking", typ, get("content"), []string{"thinkingSignature", "redacted"}, get)
	case "toolcall_checkpoint":
		st, err := r.active(index, "toolCall", typ)
		if err != nil {
			return err
		}
		st.json = accumOf(get("json"))
		args, err := jsParseStreamingJSON(get("json"))
		if err != nil {
			return err
		}
		st.block.Set("arguments", args)
	case "toolcall_end":
		st, err := r.active(index, "toolCall", typ)
		if err != nil {
			return err
		}
		st.block.Set("id", get("id"))
		st.block.Set("name", get("name"))
		st.block.Set("arguments", r.clone(get("arguments")))
		st.setOptional([]string{"thoughtSignature", "namespace"}, get)
		st.ended = true
	}
	return nil
}

// deltaTarget is what a delta frame of type typ (text_delta,
// thinking_delta or toolcall_delta) appends to: the block's text/thinking
// member or its tool call JSON, after activeBlock's checks; i passed
// assertContentIndex.
func (r *ValueReducer) deltaTarget(typ string, i float64) (*jsAccum, error) {
	if typ == "toolcall_delta" {
		st, err := r.activeAt(i, "toolCall", typ)
		if err != nil {
			return nil, err
		}
		return &st.json, nil
	}
	st, err := r.activeAt(i, typ[:len(typ)-len("_delta")], typ)
	if err != nil {
		return nil, err
	}
	member := st.kind // "text" or "thinking"
	if !st.texting {
		v, _ := st.block.Get(member)
		st.text, st.texting = accumOf(v), true
		st.block.Set(member, v) // a first += creates the member here
	}
	return &st.text, nil
}

// end is text_end/thinking_end: the authoritative body replaces the
// accumulated one, and the optional members are rewritten.
func (r *ValueReducer) end(index pi.JSONValue, kind, typ string, body pi.JSONValue, optional []string, get func(string) pi.JSONValue) error {
	st, err := r.active(index, kind, typ)
	if err != nil {
		return err
	}
	st.texting = false
	st.block.Set(kind, body)
	st.setOptional(optional, get)
	st.ended = true
	return nil
}

// setOptional deletes each member and sets it again when the frame
// carries it (`!== undefined`), in order.
func (st *valueBlock) setOptional(keys []string, get func(string) pi.JSONValue) {
	for _, k := range keys {
		st.block.Delete(k)
	}
	for _, k := range keys {
		if v := get(k); !v.IsUndefined() {
			st.block.Set(k, v)
		}
	}
}

// assertIndex is assertContentIndex.
func assertIndex(v pi.JSONValue) (float64, error) {
	if v.Kind() != pi.Number || !isSafeInt(v.Number()) || v.Number() < 0 {
		s, err := jsString(v)
		if err != nil {
			return 0, err
		}
		return 0, fail("Invalid assistant message frame contentIndex: %s", s)
	}
	return v.Number(), nil
}

func isSafeInt(n float64) bool {
	return n == float64(int64(n)) && n <= 1<<53-1 && n >= -(1<<53-1)
}

// appendBlock pushes a clone of block at message.content[index].
func (r *ValueReducer) appendBlock(index, block pi.JSONValue, kind string) error {
	i, err := assertIndex(index)
	if err != nil {
		return err
	}
	content, err := jsGet(r.message, "content")
	if err != nil {
		return err
	}
	length, err := jsGet(content, "length")
	if err != nil {
		return err
	}
	if !jsStrictEqualNumber(i, length) {
		reason := "would leave a gap"
		less, err := jsLess(i, length)
		if err != nil {
			return err
		}
		if less {
			reason = "already exists"
		}
		return fail("Cannot start assistant message block at index %s: %s", pi.FormatNumber(i), reason)
	}
	if content.Kind() != pi.Array {
		return &jsTypeError{"message.content.push is not a function"}
	}
	clone := r.clone(block)
	r.message.ObjectValue().Set("content", pi.ArrayValue(append(content.Array(), clone)))
	st := r.newBlock()
	st.kind, st.block, st.json = kind, clone.ObjectValue(), accumOf(pi.StringValue(""))
	r.states[i] = st
	r.last = nil
	r.order = append(r.order, i)
	return nil
}

// newBlock is a new zero block, a free one when there is one (its prefix
// buffer kept).
func (r *ValueReducer) newBlock() *valueBlock {
	n := len(r.free)
	if n == 0 {
		return new(valueBlock)
	}
	st := r.free[n-1]
	r.free = r.free[:n-1]
	return st
}

// active is activeBlock.
func (r *ValueReducer) active(index pi.JSONValue, kind, typ string) (*valueBlock, error) {
	i, err := assertIndex(index)
	if err != nil {
		return nil, err
	}
	return r.activeAt(i, kind, typ)
}

// activeAt is activeBlock for an index that passed assertContentIndex.
func (r *ValueReducer) activeAt(i float64, kind, typ string) (*valueBlock, error) {
	st := r.last
	if st == nil || r.lastIndex != i {
		st = r.states[i]
		r.last, r.lastIndex = st, i
	}
	if st == nil {
		// message.content[i] is read before the state is checked.
		content, err := jsGet(r.message, "content")
		if err != nil {
			return nil, err
		}
		if _, err := jsGet(content, pi.FormatNumber(i)); err != nil {
			return nil, err
		}
		return nil, fail("%s frame has no started block at index %s", typ, pi.FormatNumber(i))
	}
	if st.kind != kind {
		return nil, fail("%s frame expected %s block at index %s, found %s", typ, kind, pi.FormatNumber(i), st.kind)
	}
	if st.ended {
		return nil, fail("%s frame follows the end of block at index %s", typ, pi.FormatNumber(i))
	}
	return st, nil
}

// Finish returns the reduced message: pending text is written back and the
// JSON of every tool call without an end frame is parsed.
func (r *ValueReducer) Finish() (pi.JSONValue, error) { return r.finish(nil) }

// finish is Finish; with bodies, pending text held as a JSON body is not
// decoded into the block but listed there, for the message's writer.
func (r *ValueReducer) finish(bodies *[]rawMember) (pi.JSONValue, error) {
	if !pi.ToBoolean(r.message) {
		return pi.JSONValue{}, nil
	}
	for _, i := range r.order {
		st := r.states[i]
		if !st.texting {
			continue
		}
		if bodies != nil && st.text.esc {
			*bodies = append(*bodies, rawMember{st.block, st.kind, st.text.buf})
		} else {
			st.block.Set(st.kind, st.text.value())
		}
		st.texting = false
	}
	for _, i := range r.order {
		st := r.states[i]
		if st.kind != "toolCall" || st.ended {
			continue
		}
		json := st.json.value()
		length, err := jsGet(json, "length")
		if err != nil {
			return pi.JSONValue{}, err
		}
		if jsStrictEqualNumber(0, length) {
			continue
		}
		args, err := jsParseStreamingJSON(json)
		if err != nil {
			return pi.JSONValue{}, err
		}
		st.block.Set("arguments", args)
	}
	return r.message, nil
}
