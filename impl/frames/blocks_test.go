package frames

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestOpenBlocksIsAMap runs random opens and ends over a few content
// indexes, so that more blocks are open at once than there are inline
// slots, freed slots are taken again and the map holds the overflow, and
// requires openBlocks to answer as the map it stands for (pi-ai
// utils/assistant-message-frame.js AssistantMessageFrameEncoder's blocks
// Map: startBlock sets, block gets, endBlock deletes), with every
// handed-out state still the block's own after later opens and ends.
func TestOpenBlocksIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b openBlocks
		model := map[int]*openBlock{} // index → the state add handed out
		for step := range rapid.IntRange(0, 60).Draw(t, "steps") {
			i := rapid.IntRange(0, 5).Draw(t, "index")
			if _, open := model[i]; open {
				b.remove(i)
				delete(model, i)
			} else {
				st := b.add(i, openBlock{kind: kindText, covered: step})
				require.Equal(t, step, st.covered)
				model[i] = st
			}
			require.Equal(t, len(model), b.count())
			for j := range 6 {
				got, want := b.get(j), model[j]
				require.True(t, got == want, "index %d: get gives %p, add gave %p", j, got, want)
			}
			for j, st := range model {
				require.Same(t, st, b.get(j))
			}
		}
	})
}

// TestOpenBlocksReuseFreedSlot pins what the inline slots are for: a
// stream that opens and ends one block at a time never needs the map.
func TestOpenBlocksReuseFreedSlot(t *testing.T) {
	var b openBlocks
	for i := range 100 {
		b.add(i, openBlock{kind: kindThinking})
		b.remove(i)
	}
	require.Nil(t, b.more)
	require.Zero(t, b.count())
}
