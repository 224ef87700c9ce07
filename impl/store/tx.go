package store

import "encoding/json"

// Tx is a transaction prepared once: its writes checked for shape, their
// rows and values checked as JSON and owned (Prepare's work), so that it
// can be committed to any number of stores, each commit doing only what
// depends on the store (seqs, ids, parents, usage totals) and applying.
// pi's commit is that much: it spreads JS objects it never parses
// (commit.ts prepareStorageCommit). pi's benchmarks commit one
// transaction to many fresh stores this way, as a test or a tool seeding
// many sessions with one transcript would.
//
// A Tx is immutable once made: stores keep its rows, never writing them,
// so it may be committed to several stores at once (and their reads share
// its bytes, which readers must not write, as with any read). A nil Tx is
// the empty transaction.
type Tx struct {
	writes []CommittedWrite // seqs from 0; timestamps 0
	kinds  []EntryKind
}

// NewTx prepares writes (Prepare's checks, and its error) as a Tx.
func NewTx(writes []Write) (*Tx, error) {
	prepared, kinds, err := PrepareKinds(writes, 0, 0)
	if err != nil {
		return nil, err
	}
	return &Tx{writes: prepared, kinds: kinds}, nil
}

// Len is the number of writes.
func (t *Tx) Len() int {
	if t == nil {
		return 0
	}
	return len(t.writes)
}

// Writes returns the transaction's writes as a store that cannot commit a
// Tx is given them (normalized: a second Prepare of them accepts them and
// changes nothing).
//
// They are copies the caller owns: writing through them (an entry, a row,
// value bytes) changes neither the Tx nor a store it was committed to.
func (t *Tx) Writes() []Write {
	if t == nil {
		return nil
	}
	out := make([]Write, len(t.writes))
	for i := range t.writes {
		w := t.writes[i].Write
		switch {
		case w.Entry != nil:
			e := *w.Entry
			e.Raw = append(json.RawMessage(nil), e.Raw...)
			if e.ParentID != nil {
				p := *e.ParentID
				e.ParentID = &p
			}
			w.Entry = &e
		case w.Usage != nil:
			u := *w.Usage
			u.Raw = append(json.RawMessage(nil), u.Raw...)
			w.Usage = &u
		}
		if w.Value != nil {
			w.Value = append(json.RawMessage(nil), w.Value...)
		}
		out[i] = w
	}
	return out
}

// Stamp returns the writes with seqs from firstSeq and the transaction
// timestamp, and the entries' kinds (PrepareKinds' results, for a backend
// committing the Tx); the kinds are the Tx's own, not to be written.
func (t *Tx) Stamp(firstSeq, timestamp int64) ([]CommittedWrite, []EntryKind) {
	if t == nil {
		return nil, nil
	}
	out := make([]CommittedWrite, len(t.writes))
	copy(out, t.writes)
	for i := range out {
		out[i].Seq, out[i].Timestamp = firstSeq+int64(i), timestamp
	}
	return out, t.kinds
}

// TxStorage is a Storage that commits a prepared Tx without checking its
// rows again; every backend of impl/store/backends is one.
type TxStorage interface {
	Storage
	// CommitTx is Commit of tx's writes, minus Prepare.
	CommitTx(tx *Tx) (CommitResult, error)
}

// CommitTx commits tx to st: by CommitTx when st is a TxStorage,
// otherwise by Commit of its writes.
func CommitTx(st Storage, tx *Tx) (CommitResult, error) {
	if ts, ok := st.(TxStorage); ok {
		return ts.CommitTx(tx)
	}
	return st.Commit(tx.Writes())
}
