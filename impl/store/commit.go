package store

import (
	"errors"
	"fmt"
	"strconv"
)

// CommittedWrite is a write with the seq it was committed under. Timestamp is
// the transaction timestamp; only entries store it (pi writes it only into
// entry records), so it is 0 for other kinds when decoded from a file.
type CommittedWrite struct {
	Write
	Seq       int64
	Timestamp int64
}

// Lookup answers the two questions commit validation asks of committed state.
// The SQLite backend implements it with queries inside its transaction.
type Lookup interface {
	HasEntryOrUsage(id string) bool
	HasEntry(id string) bool
}

// SeqError is pi's "Non-monotonic storage sequence: N".
type SeqError struct{ Seq int64 }

func (e *SeqError) Error() string {
	return "Non-monotonic storage sequence: " + strconv.FormatInt(e.Seq, 10)
}

// DuplicateIDError is pi's "Duplicate entry or usage id: X".
type DuplicateIDError struct{ ID string }

func (e *DuplicateIDError) Error() string { return "Duplicate entry or usage id: " + e.ID }

// MissingParentError is pi's "Missing parent entry: X".
type MissingParentError struct{ ParentID string }

func (e *MissingParentError) Error() string { return "Missing parent entry: " + e.ParentID }

// ErrInvalidListLimit is pi's list read limit error.
var ErrInvalidListLimit = errors.New("List read limit must be a positive safe integer")

// MaxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER.
const MaxSafeInteger = 1<<53 - 1

// Prepare normalizes writes (shape checks, compact JSON) and stamps write i
// with seq firstSeq+i and the transaction timestamp. It does not consult
// state; call ValidateCommitted next.
func Prepare(writes []Write, firstSeq, timestamp int64) ([]CommittedWrite, error) {
	out, _, err := PrepareKinds(writes, firstSeq, timestamp)
	return out, err
}

// PrepareKinds is Prepare that also returns each entry's kind (KindOf of
// its normalized raw; the zero kind for other writes), read while the
// row is validated: State.ApplyKinds then need not scan the row again.
func PrepareKinds(writes []Write, firstSeq, timestamp int64) ([]CommittedWrite, []EntryKind, error) {
	out := make([]CommittedWrite, len(writes))
	kinds := make([]EntryKind, len(writes))
	a := newRowArena(writes)
	for i := range writes {
		c := &out[i]
		if err := normalizeWrite(i, &writes[i], c, &kinds[i], &a); err != nil {
			return nil, nil, err
		}
		c.Seq, c.Timestamp = firstSeq+int64(i), timestamp
	}
	return out, kinds, nil
}

// ValidateCommitted applies pi's commit rules (commit.ts
// validateCommittedWrites) to writes about to follow nextSeq-1: strictly
// increasing seqs (gaps allowed), entry and usage ids unique across both
// kinds, and every entry parent present in state or earlier in writes.
func ValidateCommitted(writes []CommittedWrite, nextSeq int64, state Lookup) error {
	prev := nextSeq - 1
	// the transaction's ids so far, and whether each names an entry: one
	// map, sized once (a transaction of one row needs none)
	rowsIn := 0
	for i := range writes {
		if k := writes[i].Kind; k == WriteEntry || k == WriteUsage {
			rowsIn++
		}
	}
	var ids map[string]bool
	if rowsIn > 1 {
		ids = make(map[string]bool, rowsIn-1)
	}
	lastEntry := "" // the id of the transaction's entry checked last
	hasLast := false
	for i := range writes {
		w := &writes[i] // a CommittedWrite is 120 bytes: looked at in place
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
		// the id goes into ids at once, a repeat showing as a map that
		// did not grow: one hash operation, not a lookup and an insert
		// (an error returns, so the overwritten answer is never read)
		dup := false
		if ids != nil {
			n := len(ids)
			ids[id] = w.Kind == WriteEntry
			dup = len(ids) == n
		}
		if dup || state.HasEntryOrUsage(id) {
			return &DuplicateIDError{ID: id}
		}
		if w.Kind == WriteEntry && w.Entry.ParentID != nil {
			p := *w.Entry.ParentID
			switch {
			case hasLast && p == lastEntry:
				// the entry checked before (not this one: its id would have
				// been a duplicate): in ids, an entry (a usage row of its
				// id since would have been a duplicate too)
			case p == id: // not before it: pi checks the parent before adding the id
				if !state.HasEntry(p) {
					return &MissingParentError{ParentID: p}
				}
			default:
				if isEntry, ok := ids[p]; !(ok && isEntry) && !state.HasEntry(p) {
					return &MissingParentError{ParentID: p}
				}
			}
		}
		if w.Kind == WriteEntry {
			lastEntry, hasLast = id, true
		}
	}
	return nil
}

// ResolvedRead is a list read after defaults and clamping.
type ResolvedRead struct {
	Cursor *int64
	Order  Order
	Limit  int
}

// ResolveReadOptions applies pi's list read rules (values.ts
// resolveListReadOptions): limit 0 not given (LimitSet false) means 1000,
// above 10,000 is clamped, negative, given as 0, or beyond 2^53-1 is
// ErrInvalidListLimit; order defaults to asc.
func ResolveReadOptions(o ReadOptions) (ResolvedRead, error) {
	limit := o.Limit
	if limit == 0 && !o.LimitSet {
		limit = 1000
	}
	if limit <= 0 || int64(limit) > MaxSafeInteger {
		return ResolvedRead{}, ErrInvalidListLimit
	}
	limit = min(limit, 10_000)
	order := o.Order
	switch order {
	case "":
		order = Asc
	case Asc, Desc:
	default:
		return ResolvedRead{}, fmt.Errorf("store: read list: invalid order %q", order)
	}
	return ResolvedRead{Cursor: o.Cursor, Order: order, Limit: limit}, nil
}
