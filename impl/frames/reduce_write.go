package frames

import (
	"cmp"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
)

// AppendReducedJSON appends JSON.stringify of the message ReduceJSON
// returns for frames, and reports whether there is one (pi-ai returns
// undefined for a list without a start frame, and JSON.stringify writes
// nothing then). On an error it returns dst as it was, and the error
// ReduceJSON returns.
//
// It is ReduceJSON followed by the message's AppendJSON, without decoding
// the text the delta frames carried: their literals, already in
// JSON.stringify's form, are copied into the message's JSON as they are.
//
// A start frame in the encoder's shape (a partial that is JSON.stringify's
// own writing, content `[]`) is not parsed: the message is kept as its
// content alone and written between the partial's bytes (rawStart); text
// and thinking start frames in the encoder's shape build their block
// without a parse (applyBlockStart). Anything else takes pi.ParseJSON. A
// list that is such a start frame, a text or thinking block's start at
// index 0 and its deltas to the end (a message while its one block
// streams) is written with no reducer at all, the deltas' literals copied
// straight into dst (appendSingle).
//
// Speed (issue 14: 50× pi-ai on `frameproof bench --family codec`; the
// codec section of docs/BENCH.md holds the figures): per delta frame of a run copyFrames
// matches the block's prefix as six or seven words and moves a literal of
// up to 24 bytes as one to three words, checked by a word test when it is
// plain ASCII and by the literalCache otherwise; the loop calls nothing,
// and is compiled apart for each common prefix length. Literals the cache
// misses (CJK text: BenchmarkReduceStoredScripts) go through checkRun,
// byte by byte. At 1 KB a message's fixed cost is mostly checking the
// start frame's partial (rawStart's canonicalJSON). A single-block list
// with one literal outside the fast shape near its end is copied twice:
// appendSingle gives up and the general path starts over. The bench's
// frames are a log's lines (slices of one buffer); lines allocated one by
// one among other values cost about twice as much at 1 MB, in cache
// misses.
func AppendReducedJSON(dst []byte, frames [][]byte) ([]byte, bool, error) {
	var s StoredReducer
	return s.AppendReducedJSON(dst, frames)
}

// StoredReducer is AppendReducedJSON for one frame list after another: it
// keeps the buffers the text was gathered in for the next list, as a
// caller keeps dst. It is not safe for concurrent use.
type StoredReducer struct {
	spare [][]byte
	// r is the reducer of the last list, kept for its states map, its
	// order and free blocks, and its start frame's message object.
	r ValueReducer
}

// maxSpare bounds the buffers a StoredReducer keeps (one per block whose
// text it gathered, the largest last); maxFree bounds its free blocks.
const (
	maxSpare = 8
	maxFree  = 64
)

// AppendReducedJSON is the package's AppendReducedJSON.
func (s *StoredReducer) AppendReducedJSON(dst []byte, frames [][]byte) ([]byte, bool, error) {
	if out, ok := s.appendSingle(dst, frames); ok {
		return out, true, nil
	}
	r := s.reset()
	defer s.keep(r)
	if err := r.applyStored(frames); err != nil {
		return dst, false, err
	}
	var list [4]rawMember
	bodies := list[:0]
	m, err := r.finish(&bodies)
	if err != nil || m.IsUndefined() {
		return dst, false, err
	}
	raw := newRawMembers(bodies)
	if r.rawHead != nil {
		content, _ := m.ObjectValue().Get("content")
		dst = appendWithBodies(append(dst, r.rawHead...), content, &raw)
		return append(dst, r.rawTail...), true, nil
	}
	return appendWithBodies(dst, m, &raw), true, nil
}

// reset readies s.r for a new list: a ValueReducer as NewValueReducer
// makes it, with the last list's map, order, free blocks, block objects
// and message object taken over (nothing of the last list's message is reachable from
// outside: its JSON was a copy).
func (s *StoredReducer) reset() *ValueReducer {
	r := &s.r
	states := r.states
	if states == nil {
		states = map[float64]*valueBlock{}
	} else {
		clear(states)
	}
	lits := r.lits
	if lits == nil {
		lits = new(literalCache)
	}
	*r = ValueReducer{states: states, order: r.order[:0], bodies: true, spare: s.spare, free: r.free, freeObjects: r.freeObjects, rawMsg: r.rawMsg, lits: lits}
	return r
}

// keep takes back the body buffers and the blocks of a reducer that is
// done: nothing the caller holds refers to them (the message's JSON is a
// copy).
func (s *StoredReducer) keep(r *ValueReducer) {
	spare := r.spare
	for _, i := range r.order {
		st := r.states[i]
		for _, acc := range [2]*jsAccum{&st.text, &st.json} {
			if acc.esc && len(spare) < maxSpare {
				spare = append(spare, acc.buf[:0])
			}
		}
		if o := st.block; o.Len() == 2 && len(r.freeObjects) < maxFree {
			r.freeObjects = append(r.freeObjects, o)
		}
		if len(r.free) < maxFree {
			*st = valueBlock{prefix: st.prefix[:0]}
			r.free = append(r.free, st)
		}
	}
	slices.SortFunc(spare, func(a, b []byte) int { return cmp.Compare(cap(a), cap(b)) })
	s.spare = spare
}

// rawMember is a block member whose value is the string with this
// JSON.stringify body (the value the block holds is stale).
type rawMember struct {
	block *pi.JSONObject
	key   string
	body  []byte
}

// rawMembers finds the raw member of a block: by a scan while there are a
// few (one per block still gathering text at the end, mostly one), by an
// index past that, so that writing stays linear in the message.
type rawMembers struct {
	list  []rawMember
	index map[*pi.JSONObject]int
}

func newRawMembers(list []rawMember) rawMembers {
	m := rawMembers{list: list}
	if len(list) > 8 {
		m.index = make(map[*pi.JSONObject]int, len(list))
		for i, r := range list {
			m.index[r.block] = i
		}
	}
	return m
}

func (m *rawMembers) of(o *pi.JSONObject) *rawMember {
	if m.index != nil {
		if i, ok := m.index[o]; ok {
			return &m.list[i]
		}
		return nil
	}
	for i := range m.list {
		if m.list[i].block == o {
			return &m.list[i]
		}
	}
	return nil
}

// appendWithBodies is v.AppendJSON(dst), with the raw members written
// from their bodies.
func appendWithBodies(dst []byte, v pi.JSONValue, raw *rawMembers) []byte {
	if len(raw.list) == 0 {
		return v.AppendJSON(dst)
	}
	switch v.Kind() {
	case pi.Array:
		dst = append(dst, '[')
		for i, e := range v.Array() {
			if i > 0 {
				dst = append(dst, ',')
			}
			if e.IsUndefined() {
				dst = append(dst, "null"...)
				continue
			}
			dst = appendWithBodies(dst, e, raw)
		}
		return append(dst, ']')
	case pi.Object:
		return appendObjectWithBodies(dst, v.ObjectValue(), raw)
	}
	return v.AppendJSON(dst)
}

// appendObjectWithBodies is AppendJSON's object: members in Keys order,
// undefined ones left out.
func appendObjectWithBodies(dst []byte, o *pi.JSONObject, raw *rawMembers) []byte {
	own := raw.of(o)
	dst = append(dst, '{')
	first := true
	for _, k := range o.Keys() {
		e, _ := o.Get(k)
		isRaw := own != nil && k == own.key
		if e.IsUndefined() && !isRaw {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(pi.AppendQuote(dst, k), ':')
		if isRaw {
			dst = append(append(append(dst, '"'), own.body...), '"')
			continue
		}
		dst = appendWithBodies(dst, e, raw)
	}
	return append(dst, '}')
}
