package lanesim

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/lanecmp"
)

// specStore is the simulator's store oracle: model/store's sequential
// specification behind the store.Storage interface the checks read. It
// shares no code with the backends under test (impl/store/memory is built
// on the same core as JSONL, so a bug there would agree with itself). Row
// bodies are kept as the writer gave them: the model decides seqs, order,
// visibility and rejection; bytes are the writer's.
//
// Reads share the bytes they return (the checks only read them): each
// value and list element written is kept as bytes by its seq, which names
// it (SeqsNameWrites), instead of being copied from the specification's
// string at every read.
type specStore struct {
	spec  *mstore.Spec
	clock env.Clock
	raw   map[string]json.RawMessage // entry and usage row bodies by id
	// bytes are the value and list element bodies, indexed by seq (seqs
	// are dense: every write takes the next)
	bytes []keptBody
	// mws is toSpec's scratch (the specification keeps no write list)
	mws []mstore.Write
	// entries and usage are what Entries and Usage return (shared, read
	// only): the specification only appends them, so each commit appends
	// its own instead of every read building them all again
	entries []store.StoredEntry
	usage   []store.StoredUsage
	// written logs the value and list addresses of every write committed,
	// in commit order (WrittenSince)
	written []store.Address
	// opMemo is currentOp's answer, and resultsMemo results', read once
	// per seq
	opMemo      refOpMemo
	resultsMemo resultsMemo
}

func newSpecStore(clock env.Clock) *specStore {
	return &specStore{spec: mstore.New(), clock: clock, raw: map[string]json.RawMessage{}}
}

// keptBody is the bytes written at a seq (ok: a value or list element
// was written there).
type keptBody struct {
	b  json.RawMessage
	ok bool
	// sv is what GetValue returned for the value at this seq (shared, read
	// only, as the bytes): a seq names one write at one address, so the
	// same value, address and seq are found again
	sv *store.StoredValue
}

// body is the bytes written at seq (value, the specification's copy, when
// they were not kept).
func (s *specStore) body(seq int64, value string) json.RawMessage {
	if seq >= 0 && seq < int64(len(s.bytes)) && s.bytes[seq].ok {
		return s.bytes[seq].b
	}
	return json.RawMessage(value)
}

var _ lanecmp.Changes = (*specStore)(nil)

// toSpec appends the specification's form of erased writes to out; a
// write the specification cannot express is an error naming it.
func toSpec(out []mstore.Write, ws []store.Write) ([]mstore.Write, error) {
	for i, w := range ws {
		addr := mstore.Addr{Namespace: w.Namespace, Key: w.Key}
		var mw mstore.Write
		switch {
		case w.Kind == store.WriteEntry && w.Entry != nil:
			mw = mstore.Write{Kind: mstore.Entry, ID: w.Entry.ID, ParentID: w.Entry.ParentID}
		case w.Kind == store.WriteUsage && w.Usage != nil:
			mw = mstore.Write{Kind: mstore.Usage, ID: w.Usage.ID}
		case w.Kind == store.WriteValue && w.Op == store.OpSet:
			mw = mstore.Write{Kind: mstore.Value, Op: mstore.Set, Addr: addr, Value: string(w.Value)}
		case w.Kind == store.WriteValue && w.Op == store.OpDelete:
			mw = mstore.Write{Kind: mstore.Value, Op: mstore.Delete, Addr: addr}
		case w.Kind == store.WriteList && w.Op == store.OpAppend:
			mw = mstore.Write{Kind: mstore.List, Op: mstore.Append, Addr: addr, Value: string(w.Value)}
		case w.Kind == store.WriteList && w.Op == store.OpDelete:
			mw = mstore.Write{Kind: mstore.List, Op: mstore.Delete, Addr: addr}
		default:
			return nil, fmt.Errorf("lanesim: write %d (%s %s) has no model form", i, w.Kind, w.Op)
		}
		if w.Kind == store.WriteValue || w.Kind == store.WriteList {
			if err := mstore.ValidateAddr(addr); err != nil {
				return nil, err
			}
		}
		out = append(out, mw)
	}
	return out, nil
}

func (s *specStore) Commit(ws []store.Write) (store.CommitResult, error) {
	mws, err := toSpec(s.mws[:0], ws)
	if err != nil {
		return store.CommitResult{}, err
	}
	s.mws = mws
	res, err := s.spec.Commit(mws, s.clock.Now().UnixMilli())
	if err != nil {
		return store.CommitResult{}, err
	}
	for i, w := range ws {
		if w.Kind == store.WriteValue || w.Kind == store.WriteList {
			s.written = append(s.written, store.Address{Namespace: w.Namespace, Key: w.Key})
		}
		switch {
		case (w.Kind == store.WriteValue && w.Op == store.OpSet) || (w.Kind == store.WriteList && w.Op == store.OpAppend):
			seq := res.Seqs[i]
			for int64(len(s.bytes)) <= seq {
				s.bytes = append(s.bytes, keptBody{})
			}
			s.bytes[seq] = keptBody{b: json.RawMessage(mws[i].Value), ok: true}
		case w.Entry != nil && w.Kind == store.WriteEntry:
			raw := append(json.RawMessage(nil), w.Entry.Raw...)
			s.raw[w.Entry.ID] = raw
			s.entries = append(s.entries, store.StoredEntry{Entry: store.Entry{ID: w.Entry.ID, ParentID: w.Entry.ParentID, Raw: raw},
				Seq: res.Seqs[i], Timestamp: res.Timestamp})
		case w.Usage != nil && w.Kind == store.WriteUsage:
			raw := append(json.RawMessage(nil), w.Usage.Raw...)
			s.raw[w.Usage.ID] = raw
			s.usage = append(s.usage, store.StoredUsage{Row: store.UsageRow{ID: w.Usage.ID, Raw: raw}, Seq: res.Seqs[i]})
		}
	}
	return store.CommitResult{FirstSeq: res.FirstSeq, Seqs: res.Seqs, Timestamp: res.Timestamp}, nil
}

// GetValue answers from the specification. Unlike the backends, it hands
// every reader of one seq the same StoredValue (the value's bytes were
// shared already): the simulator's readers only read what it returns, and
// one that wrote to it would change every later read of that seq.
func (s *specStore) GetValue(a store.Address) (*store.StoredValue, error) {
	v, ok := s.spec.GetValue(mstore.Addr{Namespace: a.Namespace, Key: a.Key})
	if !ok {
		return nil, nil
	}
	if seq := v.Seq; seq >= 0 && seq < int64(len(s.bytes)) && s.bytes[seq].ok {
		kb := &s.bytes[seq]
		if kb.sv == nil || kb.sv.Address.Namespace != a.Namespace || kb.sv.Address.Key != a.Key {
			kb.sv = &store.StoredValue{Address: store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindValue}, Value: kb.b, Seq: seq}
		}
		return kb.sv, nil
	}
	return &store.StoredValue{Address: store.Address{Namespace: a.Namespace, Key: a.Key, Kind: store.KindValue}, Value: s.body(v.Seq, v.Value), Seq: v.Seq}, nil
}

func (s *specStore) ScanValues(ns, prefix string) ([]store.StoredValue, error) {
	var out []store.StoredValue
	for _, v := range s.spec.ScanValues(ns, prefix) {
		out = append(out, store.StoredValue{Address: store.Address{Namespace: ns, Key: v.Key, Kind: store.KindValue}, Value: s.body(v.Seq, v.Value), Seq: v.Seq})
	}
	return out, nil
}

func (s *specStore) ReadList(a store.Address, o store.ReadOptions) ([]store.ListElement, error) {
	els, err := s.spec.ReadList(mstore.Addr{Namespace: a.Namespace, Key: a.Key}, o.Cursor, o.Order == store.Desc, o.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]store.ListElement, len(els))
	for i, e := range els {
		out[i] = store.ListElement{Seq: e.Seq, Value: s.body(e.Seq, e.Value)}
	}
	return out, nil
}

func (s *specStore) Entries() ([]store.StoredEntry, error) {
	if len(s.entries) == 0 {
		return nil, nil
	}
	return s.entries[:len(s.entries):len(s.entries)], nil
}

func (s *specStore) Usage() ([]store.StoredUsage, error) {
	if len(s.usage) == 0 {
		return nil, nil
	}
	return s.usage[:len(s.usage):len(s.usage)], nil
}

func (s *specStore) NextSeq() int64 { return s.spec.NextSeq() }

func (s *specStore) Close() error { return nil }

// SeqsNameWrites marks the reference store as lanecmp.SeqNamed: the
// specification gives every write a seq of its own, and the reference holds
// acknowledged commits only, never rolled back, so no seq ever names other
// bytes.
func (s *specStore) SeqsNameWrites() bool { return true }

// WrittenSince makes the reference store a lanecmp.Changes: the lockstep
// comparison after every commit reads again only the addresses the commits
// since its last read wrote. Every value and list write of a commit the
// specification accepted is logged (a rejected commit changes nothing).
func (s *specStore) WrittenSince(from int) ([]store.Address, int) {
	if from >= len(s.written) {
		return nil, len(s.written)
	}
	return s.written[from:len(s.written):len(s.written)], len(s.written)
}

// rowsAreSpec checks the entries and usage rows the store serves (appended
// at commit, so the checks after every commit read no copy) against
// model/store's own rows, once a run ends: the same ids, parents, seqs and
// timestamps in the same order, so the oracle still states them.
func (s *specStore) rowsAreSpec() error {
	want, got := s.spec.Entries(), s.entries
	if len(want) != len(got) {
		return fmt.Errorf("reference store serves %d entries, its specification holds %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Entry.ID != w.ID || !samePtr(g.Entry.ParentID, w.ParentID) || g.Seq != w.Seq || g.Timestamp != w.Timestamp {
			return fmt.Errorf("reference store entry %d is %s (seq %d), its specification's %s (seq %d)", i, g.Entry.ID, g.Seq, w.ID, w.Seq)
		}
	}
	wantU, gotU := s.spec.Usage(), s.usage
	if len(wantU) != len(gotU) {
		return fmt.Errorf("reference store serves %d usage rows, its specification holds %d", len(gotU), len(wantU))
	}
	for i, w := range wantU {
		if gotU[i].Row.ID != w.ID || gotU[i].Seq != w.Seq {
			return fmt.Errorf("reference store usage row %d is %s (seq %d), its specification's %s (seq %d)", i, gotU[i].Row.ID, gotU[i].Seq, w.ID, w.Seq)
		}
	}
	return nil
}

func samePtr(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// NewReferenceStore is the simulator's store oracle (model/store behind
// store.Storage, seqs naming writes, its commits' addresses logged) for a
// checker outside this package: sim/subject feeds it what a subject
// committed and reads sim/invariants' views of it.
func NewReferenceStore(clock env.Clock) store.Storage { return newSpecStore(clock) }

// currentOp returns the current operation and its state in the reference.
// The reference changes only by commits, and every non-empty commit
// advances its NextSeq, so the answer is decoded once per seq. Callers
// only read the state.
func (s *specStore) currentOp(decode func([]byte) (*lane.OpState, error)) (string, *lane.OpState) {
	m := &s.opMemo
	if seq := s.NextSeq(); m.seq != seq {
		m.seq = seq
		m.op, m.st = opOf(s, m.current, decode)
	}
	return m.op, m.st
}

// refOpMemo is currentOp's answer at reference seq (0: none yet; seqs
// start at 1).
type refOpMemo struct {
	seq int64
	op  string
	st  *lane.OpState
	// the lane state's bytes last decoded and their current operation: most
	// commits (frames) leave the lane state as it was
	laneRaw string
	laneCur *string
}

// current is the lane state's currentOperationId (nil: none, or the
// record does not decode), decoded again only when its bytes change.
func (m *refOpMemo) current(raw []byte) *string {
	if m.laneRaw == string(raw) {
		return m.laneCur // "" (none yet) does not decode either
	}
	var ls struct {
		Current *string `json:"currentOperationId"`
	}
	m.laneRaw, m.laneCur = string(raw), nil
	if json.Unmarshal(raw, &ls) == nil {
		m.laneCur = ls.Current
	}
	return m.laneCur
}

func opOf(st store.Storage, current func([]byte) *string, decode func([]byte) (*lane.OpState, error)) (string, *lane.OpState) {
	v, err := st.GetValue(lane.LaneStateAddr(laneName))
	if err != nil || v == nil {
		return "", nil
	}
	cur := current(v.Value)
	if cur == nil {
		return "", nil
	}
	sv, err := st.GetValue(lane.OpStateAddr(*cur))
	if err != nil || sv == nil {
		return *cur, nil
	}
	s, err := decode(sv.Value)
	if err != nil {
		return *cur, nil
	}
	return *cur, s
}

// results is the number of operation results the reference holds. It
// changes only by commits, and every non-empty commit advances its
// NextSeq, so the count is read once per seq.
func (s *specStore) results() int {
	m := &s.resultsMemo
	if seq := s.NextSeq(); m.seq != seq {
		m.seq, m.n = seq, countResults(s)
	}
	return m.n
}

// resultsMemo is results' answer at reference seq (0: none yet; seqs
// start at 1).
type resultsMemo struct {
	seq int64
	n   int
}

func countResults(ref *specStore) int {
	vs, err := ref.ScanValues(lane.NSResult, "")
	if err != nil {
		return 0
	}
	return len(vs)
}
