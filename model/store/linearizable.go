package store

import (
	"fmt"
	"strings"
)

// This file states the store as a set of independent per-address sequential
// objects, for linearizability checking of concurrent histories with crashes
// (porcupine's partitioned models; props/ wraps these functions in a
// porcupine.Model so that this package stays stdlib-only).
//
// Partitions: each value address, each list address, and one partition for
// all entry and usage rows (their ids share one namespace and entries refer
// to parents). A commit is projected onto every partition it writes, with
// the seqs its writes were acknowledged with. Within a partition the seqs of
// applied writes must increase in linearization order, which ties the
// partitions to the one global write sequence. Atomicity across partitions
// (never half a commit) is not visible here; the crash prefix checks own it.

// HistKind is the kind of a history operation.
type HistKind int

// History operation kinds.
const (
	HistCommit    HistKind = iota // Input.Writes
	HistReadValue                 // Input.Addr
	HistReadList                  // Input.Addr, every element ascending
	HistReadRows                  // entries and usage rows in seq order
)

// Input is a history operation's call.
type Input struct {
	Kind   HistKind
	Writes []Write
	Addr   Addr
}

// RowRef is an entry or usage row as a rows read reports it.
type RowRef struct {
	Kind Kind // Entry or Usage
	ID   string
	Seq  int64 // 0 in model state: applied by an indefinite commit, not yet observed
}

// Output is a history operation's return.
type Output struct {
	// Unknown marks a commit interrupted by a crash (or failing in a way that
	// leaves its outcome open): it may or may not have taken effect. Give
	// such operations an infinite return time.
	Unknown bool
	Err     string  // a definite rejection (pi's validation errors); "" = success
	Seqs    []int64 // commit: the seq of each write
	Found   bool    // read value: present?
	Value   Stored
	Elems   []Stored // read list
	Rows    []RowRef // read rows
}

// PartitionOf names the partition a write belongs to.
func PartitionOf(w Write) string {
	switch w.Kind {
	case Entry, Usage:
		return "rows"
	case Value:
		return "value:" + w.Addr.Namespace + "\x00" + w.Addr.Key
	default:
		return "list:" + w.Addr.Namespace + "\x00" + w.Addr.Key
	}
}

// Part is one operation projected onto one partition.
type Part struct {
	Key string
	In  Input
	Out Output
}

// Project splits an operation into its per-partition parts (reads touch one
// partition, commits one per partition they write).
func Project(in Input, out Output) []Part {
	switch in.Kind {
	case HistReadValue:
		return []Part{{Key: PartitionOf(Write{Kind: Value, Addr: in.Addr}), In: in, Out: out}}
	case HistReadList:
		return []Part{{Key: PartitionOf(Write{Kind: List, Addr: in.Addr}), In: in, Out: out}}
	case HistReadRows:
		return []Part{{Key: "rows", In: in, Out: out}}
	}
	var parts []Part
	index := map[string]int{}
	for i, w := range in.Writes {
		key := PartitionOf(w)
		j, ok := index[key]
		if !ok {
			j = len(parts)
			index[key] = j
			parts = append(parts, Part{Key: key, In: Input{Kind: HistCommit}, Out: Output{Unknown: out.Unknown, Err: out.Err}})
		}
		parts[j].In.Writes = append(parts[j].In.Writes, w)
		if !out.Unknown && out.Err == "" && i < len(out.Seqs) {
			parts[j].Out.Seqs = append(parts[j].Out.Seqs, out.Seqs[i])
		}
	}
	return parts
}

// PartState is the state of one partition. Only the fields of its kind are
// used. Seq 0 means "applied by an indefinite commit, seq not yet observed".
type PartState struct {
	LastSeq int64 // lower bound for the next applied write's seq
	Found   bool
	Value   Stored
	Elems   []Stored
	Rows    []RowRef
}

// PartInit is every partition's initial state.
func PartInit() PartState { return PartState{} }

// checkRows returns the error pi would raise for these entry/usage writes
// against the rows already present, or "".
func checkRows(rows []RowRef, writes []Write) string {
	kind := map[string]Kind{}
	for _, r := range rows {
		kind[r.ID] = r.Kind
	}
	for _, w := range writes {
		if _, dup := kind[w.ID]; dup {
			return errDuplicateID + w.ID
		}
		if w.Kind == Entry && w.ParentID != nil && kind[*w.ParentID] != Entry {
			return errMissingParent + *w.ParentID
		}
		kind[w.ID] = w.Kind
	}
	return ""
}

// PartStep is the sequential specification of one partition: whether the
// operation could return out in state s, and the state after it. It never
// mutates s.
func PartStep(s PartState, in Input, out Output) (bool, PartState) {
	switch in.Kind {
	case HistCommit:
		return stepCommit(s, in.Writes, out)
	case HistReadValue:
		if out.Found != s.Found {
			return false, s
		}
		if !s.Found {
			return true, s
		}
		if out.Value.Value != s.Value.Value || !seqMatches(s.Value.Seq, out.Value.Seq) {
			return false, s
		}
		n := s
		n.Value.Seq = out.Value.Seq
		n.LastSeq = max(n.LastSeq, out.Value.Seq)
		return true, n
	case HistReadList:
		if len(out.Elems) != len(s.Elems) {
			return false, s
		}
		elems := make([]Stored, len(s.Elems))
		for i, e := range s.Elems {
			o := out.Elems[i]
			if o.Value != e.Value || !seqMatches(e.Seq, o.Seq) {
				return false, s
			}
			elems[i] = o
		}
		n := s
		n.Elems = elems
		if len(elems) > 0 {
			n.LastSeq = max(n.LastSeq, elems[len(elems)-1].Seq)
		}
		return true, n
	case HistReadRows:
		if len(out.Rows) != len(s.Rows) {
			return false, s
		}
		rows := make([]RowRef, len(s.Rows))
		for i, r := range s.Rows {
			o := out.Rows[i]
			if o.ID != r.ID || o.Kind != r.Kind || !seqMatches(r.Seq, o.Seq) {
				return false, s
			}
			rows[i] = o
		}
		n := s
		n.Rows = rows
		if len(rows) > 0 {
			n.LastSeq = max(n.LastSeq, rows[len(rows)-1].Seq)
		}
		return true, n
	}
	return false, s
}

func seqMatches(model, observed int64) bool { return model == 0 || model == observed }

func stepCommit(s PartState, writes []Write, out Output) (bool, PartState) {
	rowsPart := len(writes) > 0 && (writes[0].Kind == Entry || writes[0].Kind == Usage)
	if !out.Unknown && out.Err != "" {
		// A definite rejection changes nothing. Only the rows partition can
		// tell whether the rejection was right.
		if rowsPart {
			return checkRows(s.Rows, writes) == out.Err, s
		}
		return true, s
	}
	if rowsPart && checkRows(s.Rows, writes) != "" {
		// The model would reject it: an acknowledged commit cannot have
		// happened here; an indefinite one simply had no effect.
		return out.Unknown, s
	}
	if !out.Unknown && len(out.Seqs) != len(writes) {
		return false, s
	}
	n := PartState{LastSeq: s.LastSeq, Found: s.Found, Value: s.Value,
		Elems: append([]Stored(nil), s.Elems...), Rows: append([]RowRef(nil), s.Rows...)}
	for i, w := range writes {
		var seq int64
		if !out.Unknown {
			seq = out.Seqs[i]
			if seq <= n.LastSeq {
				return false, s
			}
			n.LastSeq = seq
		}
		switch {
		case w.Kind == Entry || w.Kind == Usage:
			n.Rows = append(n.Rows, RowRef{Kind: w.Kind, ID: w.ID, Seq: seq})
		case w.Kind == Value && w.Op == Delete:
			n.Found, n.Value = false, Stored{}
		case w.Kind == Value:
			n.Found, n.Value = true, Stored{Value: w.Value, Seq: seq}
		case w.Op == Delete:
			n.Elems = nil
		default:
			n.Elems = append(n.Elems, Stored{Value: w.Value, Seq: seq})
		}
	}
	return true, n
}

// PartEqual compares partition states (nil and empty slices are equal).
func PartEqual(a, b PartState) bool {
	if a.LastSeq != b.LastSeq || a.Found != b.Found || a.Value != b.Value ||
		len(a.Elems) != len(b.Elems) || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Elems {
		if a.Elems[i] != b.Elems[i] {
			return false
		}
	}
	for i := range a.Rows {
		if a.Rows[i] != b.Rows[i] {
			return false
		}
	}
	return true
}

// DescribeHist renders an operation for porcupine's visualization.
func DescribeHist(in Input, out Output) string {
	var b strings.Builder
	switch in.Kind {
	case HistCommit:
		parts := make([]string, len(in.Writes))
		for i, w := range in.Writes {
			parts[i] = w.Describe()
		}
		b.WriteString("commit[" + strings.Join(parts, "; ") + "] -> ")
		switch {
		case out.Unknown:
			b.WriteString("?")
		case out.Err != "":
			b.WriteString(out.Err)
		default:
			b.WriteString(fmt.Sprint(out.Seqs))
		}
	case HistReadValue:
		fmt.Fprintf(&b, "get %s -> ", in.Addr)
		if out.Found {
			fmt.Fprintf(&b, "%s@%d", out.Value.Value, out.Value.Seq)
		} else {
			b.WriteString("absent")
		}
	case HistReadList:
		fmt.Fprintf(&b, "list %s -> %v", in.Addr, out.Elems)
	case HistReadRows:
		fmt.Fprintf(&b, "rows -> %v", out.Rows)
	}
	return b.String()
}

// DescribePart renders a partition state.
func DescribePart(s PartState) string {
	return fmt.Sprintf("last=%d found=%v value=%v elems=%v rows=%v", s.LastSeq, s.Found, s.Value, s.Elems, s.Rows)
}
