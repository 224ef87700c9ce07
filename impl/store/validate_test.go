package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// refValidateCommitted is ValidateCommitted as it was: a lookup and an
// insert per id, every parent looked up.
func refValidateCommitted(writes []CommittedWrite, nextSeq int64, state Lookup) error {
	prev := nextSeq - 1
	ids := make(map[string]bool, len(writes))
	for i := range writes {
		w := &writes[i]
		if w.Seq <= prev {
			return &SeqError{Seq: w.Seq}
		}
		prev = w.Seq
		var id string
		switch w.Kind {
		case WriteEntry:
			id = w.Entry.ID
		case WriteUsage:
			id = w.Usage.ID
		default:
			continue
		}
		if _, dup := ids[id]; dup || state.HasEntryOrUsage(id) {
			return &DuplicateIDError{ID: id}
		}
		if w.Kind == WriteEntry && w.Entry.ParentID != nil {
			p := *w.Entry.ParentID
			if isEntry, ok := ids[p]; !(ok && isEntry) && !state.HasEntry(p) {
				return &MissingParentError{ParentID: p}
			}
		}
		ids[id] = w.Kind == WriteEntry
	}
	return nil
}

// fakeLookup is a state of entry ids and usage ids, counting its calls.
type fakeLookup struct {
	entries, usage map[string]bool
	calls          []string
}

func (l *fakeLookup) HasEntryOrUsage(id string) bool {
	l.calls = append(l.calls, "any "+id)
	return l.entries[id] || l.usage[id]
}

func (l *fakeLookup) HasEntry(id string) bool {
	l.calls = append(l.calls, "entry "+id)
	return l.entries[id]
}

// ValidateCommitted gives the old answer, asking the state the same
// questions in the same order, on transactions of entries (chains, self
// and missing parents, repeats), usage rows sharing their ids, values,
// and seqs out of order.
func TestValidateCommittedIsTheLookupPerID(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	id := func() string { return fmt.Sprintf("e%d", rng.IntN(12)) }
	for range 20000 {
		state := func() *fakeLookup {
			l := &fakeLookup{entries: map[string]bool{}, usage: map[string]bool{}}
			for range rng.IntN(4) {
				l.entries[id()] = true
			}
			for range rng.IntN(2) {
				l.usage[id()] = true
			}
			return l
		}()
		n := rng.IntN(7)
		writes := make([]CommittedWrite, n)
		seq := int64(10)
		last := ""
		for i := range writes {
			w := &writes[i]
			seq += 1 + int64(rng.IntN(2))
			if rng.IntN(25) == 0 {
				seq -= 3
			}
			w.Seq = seq
			switch rng.IntN(6) {
			case 0:
				w.Kind = WriteUsage
				w.Usage = &UsageRow{ID: id()}
			case 1:
				w.Kind, w.Op, w.Namespace, w.Key = WriteValue, OpSet, "ns", "k"
			default:
				e := &Entry{ID: id()}
				switch rng.IntN(5) {
				case 0: // a root
				case 1, 2:
					if last != "" {
						p := last
						e.ParentID = &p
						break
					}
					fallthrough
				case 3:
					p := id()
					e.ParentID = &p
				default:
					p := e.ID
					e.ParentID = &p
				}
				w.Kind, w.Entry = WriteEntry, e
				last = e.ID
			}
		}
		ref := &fakeLookup{entries: state.entries, usage: state.usage}
		want := refValidateCommitted(writes, 10, ref)
		got := ValidateCommitted(writes, 10, state)
		if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(state.calls) != fmt.Sprint(ref.calls) {
			t.Fatalf("writes %s: %v asking %v, before %v asking %v", describe(writes), got, state.calls, want, ref.calls)
		}
	}
}

func describe(writes []CommittedWrite) string {
	s := ""
	for _, w := range writes {
		s += fmt.Sprintf("%s@%d", w.String(), w.Seq)
		if w.Kind == WriteEntry && w.Entry.ParentID != nil {
			s += "<-" + *w.Entry.ParentID
		}
		s += " "
	}
	return s
}
