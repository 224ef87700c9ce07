package lanecmp

import "github.com/frameproof/frameproof/impl/store"

// SeqNamed is storage whose seqs name what it holds: every write gets a seq
// of its own, and no seq ever names other content (the simulator's
// reference store, a sequential specification that holds acknowledged
// commits only, never rolled back). A Reader reading one keys what it
// derived from a stored record by the record's seq instead of its bytes,
// so a comparison after every commit no longer hashes every stored byte.
// Storage under test does not qualify: a crash may roll back a commit whose
// seqs a later commit then reuses for other bytes.
type SeqNamed interface {
	store.Storage
	// SeqsNameWrites is a marker; it returns true.
	SeqsNameWrites() bool
}

// seqNamed reports whether r keys by seq what it derives from st: st is
// SeqNamed and the first SeqNamed storage r read (two such stores would
// give one seq to different records; any other is keyed by bytes).
func (r *Reader) seqNamed(st store.Storage) bool {
	s, ok := st.(SeqNamed)
	if !ok || !s.SeqsNameWrites() {
		return false
	}
	if r.named == nil {
		r.named = s
	}
	return r.named == s
}

// memo remembers what was derived from stored records, by seq when the
// storage's seqs name its records (SeqNamed), else by the record's bytes.
type memo[T any] struct {
	bySeq   map[int64]T
	byBytes map[string]T
}

func (m *memo[T]) get(named bool, seq int64, raw []byte) (T, bool) {
	var v T
	var ok bool
	if named {
		v, ok = m.bySeq[seq]
	} else {
		v, ok = m.byBytes[string(raw)]
	}
	return v, ok
}

func (m *memo[T]) put(named bool, seq int64, raw []byte, v T) {
	if named {
		if m.bySeq == nil {
			m.bySeq = map[int64]T{}
		}
		m.bySeq[seq] = v
		return
	}
	if m.byBytes == nil {
		m.byBytes = map[string]T{}
	}
	m.byBytes[string(raw)] = v
}
