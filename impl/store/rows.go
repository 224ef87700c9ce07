package store

import "math/bits"

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

const (
	maxRowChunk    = 1024
	maxRowChunkLog = 10 // log2(maxRowChunk)
)

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

// copyTo copies rows [from, from+len(dst)) into dst, a chunk at a time.
func (r *rows[T]) copyTo(dst []T, from int) {
	for len(dst) > 0 {
		k := chunkOf(from)
		n := copy(dst, r.chunks[k][from-r.starts[k]:])
		dst, from = dst[n:], from+n
	}
}

// at returns row i (0 <= i < len). Chunk sizes follow from append alone
// (a chunk starting at row s holds min(max(8, s), maxRowChunk) rows), so
// the chunk is computed, not searched: rows 0-7 are chunk 0, rows [2^k,
// 2^(k+1)) below maxRowChunk are chunk k-2, and past maxRowChunk every
// chunk holds maxRowChunk rows.
func (r *rows[T]) at(i int) *T {
	k := chunkOf(i)
	return &r.chunks[k][i-r.starts[k]]
}

// chunkOf is the chunk holding row i.
func chunkOf(i int) int {
	switch {
	case i < 8:
		return 0
	case i < maxRowChunk:
		return bits.Len(uint(i)) - 3
	}
	return maxRowChunkLog - 3 + i/maxRowChunk
}
