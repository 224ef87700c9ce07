package store

import "math/bits"

// rows is an append-only sequence kept in chunks that never move. A slice
// grown by append copies every row at each doubling and leaves the old
// arrays as garbage: for a session's entries and usage rows, more than
// half the bytes the State allocated on open. Chunks grow with the
// sequence (so a small State stays small) up to maxRowChunk rows.
type rows[T any] struct {
	view *rowsView[T] // nil until the first append
	n    int
}

// rowsView reads rows in place. A chunk is made at its full length and
// its slice header is never written again, and a row is never written
// after it is appended; and a view is never written once published
// (append makes a new one for a new chunk, which appends to the old
// view's chunks past its length or to a copy of them): so a view taken
// under the store's lock reads rows [0, n) without the lock while later
// appends write rows past n (and chunks past the view's), which is how a
// query's EntryList reads the store's entries rather than copies of them.
// A list holds the view by pointer, one word, not its three-word chunks
// slice: see EntryList.
type rowsView[T any] struct {
	chunks [][]T
}

const (
	maxRowChunk    = 1024
	maxRowChunkLog = 10 // log2(maxRowChunk)
)

func (r *rows[T]) append(v T) {
	k := chunkOf(r.n)
	if r.view == nil {
		r.view = newFirstView[T]()
	} else if k == len(r.view.chunks) {
		r.view = &rowsView[T]{chunks: append(r.view.chunks, make([]T, min(max(8, r.n), maxRowChunk)))}
	}
	r.view.chunks[k][r.n-chunkStart(k)] = v
	r.n++
}

// firstRows is a rows' first view with its chunk, in one allocation: a
// store's first commit makes one for its entries and one for their meta,
// where a view, its chunks slice and its chunk were three allocations
// each (four of the five allocations a commit of one entry to a new State
// no longer makes: BenchmarkCommitTxNewState).
type firstRows[T any] struct {
	view   rowsView[T]
	chunks [1][]T
	rows   [8]T // chunk 0: append's first chunk holds 8 rows
}

func newFirstView[T any]() *rowsView[T] {
	f := &firstRows[T]{}
	f.chunks[0] = f.rows[:]
	f.view.chunks = f.chunks[:]
	return &f.view
}

// reserve makes room for n rows in rows that have none, as the chunks
// append would make for them cut from one array: a first commit of many
// rows then allocates once per kind of row, not once per chunk and once
// per view of a chunk more.
func (r *rows[T]) reserve(n int) {
	if r.view != nil || n <= 8 {
		return
	}
	r.view = viewOf(make([]T, chunkStart(chunkOf(n-1)+1)))
}

func (r *rows[T]) len() int { return r.n }

// at returns row i (0 <= i < len).
func (r *rows[T]) at(i int) *T { return r.view.at(i) }

// clone returns the rows in order in a new slice; nil when there are none,
// as slices.Clone of a never-appended slice was.
func (r *rows[T]) clone() []T {
	if r.n == 0 {
		return nil
	}
	out := make([]T, r.n)
	r.view.copyTo(out, 0)
	return out
}

// copyTo copies rows [from, from+len(dst)) into dst, a chunk at a time.
func (r *rowsView[T]) copyTo(dst []T, from int) {
	for len(dst) > 0 {
		k := chunkOf(from)
		n := copy(dst, r.chunks[k][from-chunkStart(k):])
		dst, from = dst[n:], from+n
	}
}

// at returns row i (0 <= i < len). Chunk sizes follow from append alone
// (a chunk starting at row s holds min(max(8, s), maxRowChunk) rows), so
// the chunk is computed, not searched: rows 0-7 are chunk 0, rows [2^k,
// 2^(k+1)) below maxRowChunk are chunk k-2, and past maxRowChunk every
// chunk holds maxRowChunk rows.
func (r *rowsView[T]) at(i int) *T {
	k := chunkOf(i)
	return &r.chunks[k][i-chunkStart(k)]
}

// viewOf is a view of rows already in order, in place: es cut into the
// chunks append would have made, so that at reads it as it reads rows.
func viewOf[T any](es []T) *rowsView[T] {
	v := &rowsView[T]{}
	if len(es) > 0 {
		v.chunks = make([][]T, 0, chunkOf(len(es)-1)+1)
	}
	for k := 0; chunkStart(k) < len(es); k++ {
		v.chunks = append(v.chunks, es[chunkStart(k):min(len(es), chunkStart(k+1))])
	}
	return v
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

// chunkStart is the index of chunk k's first row (chunkOf's inverse).
func chunkStart(k int) int {
	switch {
	case k == 0:
		return 0
	case k < maxRowChunkLog-2:
		return 1 << (k + 2)
	}
	return (k - (maxRowChunkLog - 3)) * maxRowChunk
}
