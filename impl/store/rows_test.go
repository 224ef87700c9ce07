package store

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// rows keeps order across chunk boundaries and past the chunk cap, and
// never moves a chunk once allocated.
func TestRowsKeepOrderAcrossChunks(t *testing.T) {
	var r rows[int]
	require.Nil(t, r.clone())
	var want []int
	var firstChunk *int
	for i := range 3 * maxRowChunk {
		r.append(i)
		want = append(want, i)
		if i == 0 {
			firstChunk = &r.view.chunks[0][0]
		}
		require.Equal(t, i+1, r.len())
	}
	require.Equal(t, want, r.clone())
	for i := range r.len() {
		require.Equal(t, i, *r.at(i), "at(%d)", i) // the computed chunk is the right one
	}
	for _, span := range [][2]int{{0, 0}, {0, 3 * maxRowChunk}, {5, 20}, {7, 1}, {1000, 2000}, {3*maxRowChunk - 1, 1}} {
		got := make([]int, span[1])
		r.view.copyTo(got, span[0])
		require.Equal(t, want[span[0]:span[0]+span[1]], got, "copyTo from %d, %d rows", span[0], span[1])
	}
	require.Same(t, firstChunk, &r.view.chunks[0][0], "a chunk moved")
	for _, c := range r.view.chunks {
		require.LessOrEqual(t, cap(c), maxRowChunk)
	}
}

// A view taken before later appends keeps its chunks (append publishes a
// new view for a new chunk rather than growing the one a list holds), and
// viewOf cuts rows already in order into the chunks append makes, in place.
// reserve lays out the chunks append would have made, so that at finds
// every row, and later appends go on past them.
func TestRowsReserveLaysOutAppendsChunks(t *testing.T) {
	for _, n := range []int{0, 1, 8, 9, 100, 128, 129, maxRowChunk, maxRowChunk + 1, 3*maxRowChunk + 5} {
		var grown, reserved rows[int]
		reserved.reserve(n)
		for i := range n + 2*maxRowChunk {
			grown.append(i)
			reserved.append(i)
		}
		require.Equal(t, len(grown.view.chunks), len(reserved.view.chunks), "n=%d", n)
		for k, c := range grown.view.chunks {
			require.Equal(t, len(c), len(reserved.view.chunks[k]), "n=%d chunk %d", n, k)
			require.Equal(t, c, reserved.view.chunks[k], "n=%d chunk %d", n, k)
		}
		for i := range reserved.len() {
			require.Equal(t, i, *reserved.at(i), "n=%d at(%d)", n, i)
		}
	}
}

func TestRowsViewsAreStableAndViewOfMatchesAppend(t *testing.T) {
	var r rows[int]
	for i := range 10 {
		r.append(i)
	}
	early := r.view
	chunks := len(early.chunks)
	for i := 10; i < 3*maxRowChunk+5; i++ {
		r.append(i)
	}
	require.Len(t, early.chunks, chunks, "a published view changed")
	for i := range 10 {
		require.Equal(t, i, *early.at(i))
	}
	for _, n := range []int{0, 1, 7, 8, 9, 1023, 1024, 1025, 3*maxRowChunk + 5} {
		es := make([]int, n)
		for i := range es {
			es[i] = i
		}
		v := viewOf(es)
		if n > 0 {
			require.Len(t, v.chunks, chunkOf(n-1)+1, "n=%d", n)
		}
		for i := range n {
			require.Same(t, &es[i], v.at(i), "n=%d: row %d is not es's own", n, i)
		}
	}
}

// sortBySeq puts any permutation of writes in seq order.
func TestSortBySeqOrdersAnyPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		ws := make([]CommittedWrite, n)
		for i, p := range rng.Perm(n) {
			ws[i] = CommittedWrite{Write: Write{Key: strconv.Itoa(p)}, Seq: int64(p)}
		}
		sortBySeq(ws)
		for i, w := range ws {
			require.Equal(t, int64(i), w.Seq)
			require.Equal(t, strconv.Itoa(i), w.Key)
		}
	}
}

// kindTable gives each distinct kind one index, below and past the size
// at which it starts keeping a map.
func TestKindTableInternsPastItsMap(t *testing.T) {
	var tab kindTable
	seen := map[EntryKind]uint32{}
	for round := range 3 {
		for i := range 3 * smallKindTable {
			k := EntryKind{Type: `"custom"`, CustomType: `"c` + strconv.Itoa(i) + `"`}
			if i%5 == 0 {
				k = EntryKind{Type: `"message"`}
			}
			got := tab.index(k)
			require.Equal(t, k, tab.all[got])
			if want, ok := seen[k]; ok {
				require.Equal(t, want, got, "round %d: %v got a second index", round, k)
			}
			seen[k] = got
		}
	}
	require.Len(t, tab.all, len(seen))
}

// The kind table answers IsMessage for every kind it interned, past the
// 64 it keeps as bits too.
func TestKindTableKnowsItsMessages(t *testing.T) {
	var tab kindTable
	for i := range 100 {
		k := EntryKind{Type: `"custom"`, CustomType: `"c` + strconv.Itoa(i) + `"`}
		if i%3 == 0 {
			k.Type = `"message"`
		}
		got := tab.index(k)
		require.Equal(t, uint32(i), got)
	}
	for i, k := range tab.all {
		require.Equal(t, k.IsMessage(), tab.isMessage(uint32(i)), "kind %d %v", i, k)
	}
}
