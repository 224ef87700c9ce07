package invariants

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// ReadView builds the committed part of a View from storage. Storage cannot
// enumerate lists, so the caller names the operations and the list keys
// (e.g. every FramesAddr seen in the frame log).
func ReadView(st store.Storage, ops []string, listKeys []string) (*View, error) {
	return new(ViewReader).Read(st, ops, listKeys)
}

// ViewReader builds views like ReadView, remembering the message it decoded
// from each stored entry's bytes: committed entries never change, so a
// simulator that checks after every commit would otherwise re-decode the
// whole transcript each time; op states likewise, and which frame-list
// elements invariant 3 found canonical. Keyed by the raw bytes,
// never by id (by seq for storage whose seqs name its records; the views of
// such storage also share one Entries map, which the next Read grows). The decoded messages and states are shared between views and
// must not be mutated. The zero ViewReader is ready to use; it is not safe for
// concurrent use.
type ViewReader struct {
	// Decode, when set, decodes op states instead of lane.DecodeState (a
	// caller that decodes the same bytes elsewhere shares its memo).
	Decode func([]byte) (*lane.OpState, error)
	// Parse, when set, parses entries instead of pi.ParseJSON, likewise;
	// the values it returns are only read.
	Parse func([]byte) (pi.JSONValue, error)
	// Frame, when set, parses the committed list element of seq instead of
	// pi.ParseFrame, for the seq-named storage only (where a seq names its
	// bytes): a caller that parses the same frames elsewhere shares its
	// memo; the frames it returns are only read.
	Frame func(seq int64, value []byte) (*pi.Frame, error)

	entries map[string]entryDecode
	ops     map[string]opDecode
	// canonical is every view's View.canonical (invariant 3's memo)
	canonical map[string]bool

	// The same memos keyed by seq, for the one storage whose seqs name its
	// records (SeqsNameWrites) that this reader reads: hashing every
	// stored byte at every check was most of the memos' cost.
	named         seqNamer
	entrySeqs     map[int64]entryDecode
	opSeqs        map[int64]opDecode
	canonicalSeqs map[int64]bool
	// entryMap is the Entries of every view read from that storage (shared:
	// read only, and grown by the next Read), holding its first entryCount
	// entries, the last of them at lastEntrySeq.
	entryMap     map[string]*pi.AssistantMessage
	entryCount   int
	lastEntrySeq int64
	// parts are the ops, results and lists last read from that storage
	// when it also logs what its commits wrote (changeLog): a Read reads
	// again only what the commits since wrote
	parts *parts
	// VerifyParts, when set, makes every Read of such storage also read
	// its ops, results and lists in full and fail unless the two agree:
	// the proof that the incremental parts read what a full read does.
	VerifyParts bool
}

// changeLog is seq-named storage that lists the addresses its commits wrote
// (lanecmp.Changes: the simulator's reference store).
type changeLog interface {
	WrittenSince(from int) ([]store.Address, int)
}

// parts are what Read last read from a changeLog store, by address.
type parts struct {
	pos     int // the log position they are current to
	ops     map[string]*lane.OpState
	results map[string]bool
	lists   map[string][]store.ListElement
	// lastOps and lastKeys are what that Read was asked for
	lastOps, lastKeys []string
	// dirty is readParts' scratch: the addresses written since
	dirty map[[2]string]bool
}

// seqNamer is storage whose seqs name what it holds: every write gets a seq
// of its own, and no seq ever names other content (lanecmp.SeqNamed: the
// simulator's reference store, which holds acknowledged commits only).
type seqNamer interface {
	SeqsNameWrites() bool
}

// seqNamed reports whether r keys by seq what it derives from st: st names
// its records by seq and is the first such storage r read.
func (r *ViewReader) seqNamed(st store.Storage) bool {
	s, ok := st.(seqNamer)
	if !ok || !s.SeqsNameWrites() {
		return false
	}
	if r.named == nil {
		r.named = s
		r.entrySeqs, r.opSeqs, r.canonicalSeqs = map[int64]entryDecode{}, map[int64]opDecode{}, map[int64]bool{}
	}
	return r.named == s
}

type opDecode struct {
	state *lane.OpState
	err   error
}

type entryDecode struct {
	msg *pi.AssistantMessage // nil for a non-assistant entry
	err error
}

// Read is ReadView through r's memo.
func (r *ViewReader) Read(st store.Storage, ops []string, listKeys []string) (*View, error) {
	if r.canonical == nil {
		r.canonical = map[string]bool{}
	}
	named := r.seqNamed(st)
	v := &View{canonical: r.canonical} // readEntries gives it its Entries
	if named {
		v.canonicalSeqs, v.parseFrame = r.canonicalSeqs, r.Frame
	}
	if cl, ok := st.(changeLog); ok && named {
		if err := r.readParts(st, cl, ops, listKeys, v); err != nil {
			return nil, err
		}
		if r.VerifyParts {
			if err := r.verifyParts(st, ops, listKeys, v); err != nil {
				return nil, err
			}
		}
	} else {
		v.Ops, v.Results = make(map[string]*lane.OpState, len(ops)), make(map[string]bool, len(ops))
		v.Lists = make(map[string][]store.ListElement, len(listKeys))
		for _, op := range ops {
			if err := r.readOp(st, named, op, v); err != nil {
				return nil, err
			}
		}
		for _, k := range listKeys {
			all, err := readFrames(st, k)
			if err != nil {
				return nil, err
			}
			v.Lists[k] = all
		}
	}
	if err := r.readEntries(st, named, v); err != nil {
		return nil, err
	}
	return v, nil
}

// readParts fills v's ops, results and lists as the loops of Read do, from
// the parts the last Read kept, reading again (in Read's order, so the
// first error is a full read's) only the operations and lists the commits
// since wrote or that were not read before: the storage's seqs name its
// records, so the rest read the same. Asked for the same operations and
// lists as last time, it updates the last views' maps in place and shares
// them (views are read only, and valid until the next Read, as their
// Entries are). A failed read drops the parts.
func (r *ViewReader) readParts(st store.Storage, cl changeLog, ops, listKeys []string, v *View) error {
	p := r.parts
	r.parts = nil
	from := math.MaxInt // new parts: everything is read, only the log's end is wanted
	if p != nil {
		from = p.pos
	} else {
		p = &parts{}
	}
	written, end := cl.WrittenSince(from)
	p.pos = end
	if p.dirty == nil {
		p.dirty = make(map[[2]string]bool, len(written))
	}
	clear(p.dirty)
	dirty := p.dirty
	for _, a := range written {
		dirty[[2]string{a.Namespace, a.Key}] = true
	}
	old := *p
	inPlace := p.ops != nil && slices.Equal(ops, p.lastOps) && slices.Equal(listKeys, p.lastKeys)
	if !inPlace {
		p.ops, p.results = make(map[string]*lane.OpState, len(ops)), make(map[string]bool, len(ops))
		p.lists = make(map[string][]store.ListElement, len(listKeys))
		p.lastOps, p.lastKeys = slices.Clone(ops), slices.Clone(listKeys)
	}
	for _, op := range ops {
		s, ok := old.ops[op]
		res := old.results[op]
		reread := !ok || dirty[[2]string{lane.NSOpState, op}] || dirty[[2]string{lane.NSResult, op}]
		if inPlace && !reread {
			continue
		}
		if reread {
			var err error
			if s, res, err = r.readOpState(st, true, op); err != nil {
				return err
			}
		}
		p.ops[op], p.results[op] = s, res
	}
	for _, k := range listKeys {
		all, ok := old.lists[k]
		reread := !ok || dirty[[2]string{lane.NSAssistantFrame, k}]
		if inPlace && !reread {
			continue
		}
		if reread {
			var err error
			if all, err = readFrames(st, k); err != nil {
				return err
			}
		}
		p.lists[k] = all
	}
	v.Ops, v.Results, v.Lists = p.ops, p.results, p.lists
	r.parts = p
	return nil
}

// readOp reads op's state (decoded once per seq or bytes) and whether its
// result exists into v.
func (r *ViewReader) readOp(st store.Storage, named bool, op string, v *View) error {
	s, res, err := r.readOpState(st, named, op)
	if err != nil {
		return err
	}
	v.Ops[op], v.Results[op] = s, res
	return nil
}

// readOpState reads op's state (nil: none) and whether its result exists.
func (r *ViewReader) readOpState(st store.Storage, named bool, op string) (*lane.OpState, bool, error) {
	sv, err := st.GetValue(lane.OpStateAddr(op))
	if err != nil {
		return nil, false, err
	}
	var s *lane.OpState
	if sv != nil {
		d := r.decodeOp(named, sv)
		if d.err != nil {
			return nil, false, fmt.Errorf("invariants: op %s: %w", op, d.err)
		}
		s = d.state
	}
	rv, err := st.GetValue(lane.ResultAddr(op))
	if err != nil {
		return nil, false, err
	}
	return s, rv != nil, nil
}

// decodeOp decodes a stored op state through the memo: by seq on the
// reference, by bytes elsewhere.
func (r *ViewReader) decodeOp(named bool, sv *store.StoredValue) opDecode {
	if r.ops == nil {
		r.ops = map[string]opDecode{}
	}
	var d opDecode
	var ok bool
	if named {
		d, ok = r.opSeqs[sv.Seq]
	} else {
		d, ok = r.ops[string(sv.Value)]
	}
	if ok {
		return d
	}
	decode := r.Decode
	if decode == nil {
		decode = lane.DecodeState
	}
	s, err := decode(sv.Value)
	d = opDecode{state: s, err: err}
	if named {
		r.opSeqs[sv.Seq] = d
	} else {
		r.ops[string(sv.Value)] = d
	}
	return d
}

// readFrames reads the whole frame list of key k, page by page.
func readFrames(st store.Storage, k string) ([]store.ListElement, error) {
	var all []store.ListElement
	var cursor *int64
	for {
		page, err := st.ReadList(store.Address{Namespace: lane.NSAssistantFrame, Key: k, Kind: store.KindList}, store.ReadOptions{Cursor: cursor, Limit: 10_000})
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < 10_000 {
			return all, nil
		}
		s := page[len(page)-1].Seq
		cursor = &s
	}
}

// readEntries decodes the stored entries into v.Entries (assistant
// messages; nil for the others), each once per seq or bytes.
func (r *ViewReader) readEntries(st store.Storage, named bool, v *View) error {
	es, err := st.Entries()
	if err != nil {
		return err
	}
	if r.entries == nil {
		r.entries = map[string]entryDecode{}
	}
	start := 0
	if named {
		// the reference only appends entries, in seq order: while the
		// entries read last time are still the head (the last of them has
		// the same seq, which no other record can have), only the new ones
		// are added to the map those views share
		if n := r.entryCount; n > 0 && n <= len(es) && es[n-1].Seq == r.lastEntrySeq {
			start = n
		} else {
			r.entryMap, r.entryCount = make(map[string]*pi.AssistantMessage, len(es)), 0
		}
		v.Entries = r.entryMap
	} else {
		v.Entries = make(map[string]*pi.AssistantMessage, len(es))
	}
	for _, e := range es[start:] {
		d := r.decodeEntry(named, e)
		if d.err != nil {
			return fmt.Errorf("invariants: entry %s: %w", e.Entry.ID, d.err)
		}
		v.Entries[e.Entry.ID] = d.msg
		if named {
			r.entryCount, r.lastEntrySeq = r.entryCount+1, e.Seq
		}
	}
	return nil
}

// decodeEntry decodes a stored entry through the memo.
func (r *ViewReader) decodeEntry(named bool, e store.StoredEntry) entryDecode {
	var d entryDecode
	var ok bool
	if named {
		d, ok = r.entrySeqs[e.Seq]
	} else {
		d, ok = r.entries[string(e.Entry.Raw)]
	}
	if ok {
		return d
	}
	d = decodeEntry(e.Entry.Raw, r.Parse)
	if named {
		r.entrySeqs[e.Seq] = d
	} else {
		r.entries[string(e.Entry.Raw)] = d
	}
	return d
}

// decodeEntry decodes a stored entry's assistant message (nil msg for any
// other role), parsing with parse (nil: pi.ParseJSON).
func decodeEntry(raw []byte, parse func([]byte) (pi.JSONValue, error)) entryDecode {
	if parse == nil {
		parse = func(b []byte) (pi.JSONValue, error) { return pi.ParseJSON(string(b)) }
	}
	pv, err := parse(raw)
	if err != nil {
		return entryDecode{err: err}
	}
	mv, _ := pv.ObjectValue().Get("message")
	if role, _ := mv.ObjectValue().Get("role"); role.Str() != "assistant" {
		return entryDecode{}
	}
	m, err := pi.DecodeAssistantMessage(mv, "entry.message")
	return entryDecode{msg: m, err: err}
}

// verifyParts reads ops, results and lists in full and requires v's to be
// the same: the same decoded state (the memo gives one seq one state), the
// same result presence, the same elements by seq and bytes.
func (r *ViewReader) verifyParts(st store.Storage, ops, listKeys []string, v *View) error {
	full := &View{Ops: map[string]*lane.OpState{}, Results: map[string]bool{}, Lists: map[string][]store.ListElement{}}
	for _, op := range ops {
		if err := r.readOp(st, true, op, full); err != nil {
			return fmt.Errorf("invariants: incremental parts read, a full read failed: %w", err)
		}
	}
	for _, k := range listKeys {
		all, err := readFrames(st, k)
		if err != nil {
			return fmt.Errorf("invariants: incremental parts read, a full read failed: %w", err)
		}
		full.Lists[k] = all
	}
	if len(full.Ops) != len(v.Ops) || len(full.Results) != len(v.Results) || len(full.Lists) != len(v.Lists) {
		return fmt.Errorf("invariants: incremental parts hold %d ops, %d results, %d lists; a full read %d, %d, %d",
			len(v.Ops), len(v.Results), len(v.Lists), len(full.Ops), len(full.Results), len(full.Lists))
	}
	for op, s := range full.Ops {
		if got, ok := v.Ops[op]; !ok || got != s || v.Results[op] != full.Results[op] {
			return fmt.Errorf("invariants: incremental parts differ from a full read at operation %s", op)
		}
	}
	for k, els := range full.Lists {
		got := v.Lists[k]
		if len(got) != len(els) {
			return fmt.Errorf("invariants: incremental parts hold %d elements of list %s, a full read %d", len(got), k, len(els))
		}
		for i, e := range els {
			if got[i].Seq != e.Seq || !bytes.Equal(got[i].Value, e.Value) {
				return fmt.Errorf("invariants: incremental parts differ from a full read at list %s element %d", k, i)
			}
		}
	}
	return nil
}
