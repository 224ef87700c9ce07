package store

// rows is an append-only sequence kept in chunks that never move. A slice
// grown by append copies every row at each doubling and leaves the old
// arrays as garbage: for a session's entries and usage rows, more than
// half the bytes the State allocated on open. Chunks grow with the
// sequence (so a small State stays small) up to maxRowChunk rows.
type rows[T any] struct {
	chunks [][]T
	starts []int // starts[k] is the index of chunks[k]'s first row
	n      int
}

const maxRowChunk = 1024

func (r *rows[T]) append(v T) {
	if k := len(r.chunks); k == 0 || len(r.chunks[k-1]) == cap(r.chunks[k-1]) {
		r.chunks = append(r.chunks, make([]T, 0, min(max(8, r.n), maxRowChunk)))
		r.starts = append(r.starts, r.n)
	}
	last := &r.chunks[len(r.chunks)-1]
	*last = append(*last, v)
	r.n++
}

func (r *rows[T]) len() int { return r.n }

// clone returns the rows in order in a new slice; nil when there are none,
// as slices.Clone of a never-appended slice was.
func (r *rows[T]) clone() []T {
	if r.n == 0 {
		return nil
	}
	out := make([]T, 0, r.n)
	for _, c := range r.chunks {
		out = append(out, c...)
	}
	return out
}

// at returns row i (0 <= i < len), finding its chunk by binary search.
func (r *rows[T]) at(i int) *T {
	lo, hi := 0, len(r.starts)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if r.starts[mid] <= i {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return &r.chunks[lo][i-r.starts[lo]]
}
