package frames

// openBlocks is the encoder's started, unended blocks by content index, as
// pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder keeps
// them in its blocks Map (startBlock, block, endBlock). A provider streams one block at a
// time, or a thinking block beside the text or tool call it leads to, so
// the first inlineBlocks blocks open at once live in the encoder itself and
// starting one allocates nothing (a start per block is most of the fixed
// cost of encoding a short message); any more open at once go to a map. A
// slot is free again when its block ends. Slots never move, so the
// *openBlock get and add return stays valid until its block ends.
type openBlocks struct {
	slot  [inlineBlocks]openBlock
	index [inlineBlocks]int // slot k's content index, when slot[k] is in use
	more  map[int]*openBlock
}

const inlineBlocks = 2

// inUse reports whether slot k holds block i (every open block has a kind).
func (b *openBlocks) inUse(k, i int) bool { return b.slot[k].kind != "" && b.index[k] == i }

// get is block i's state, nil when it is not open.
func (b *openBlocks) get(i int) *openBlock {
	for k := range b.slot {
		if b.inUse(k, i) {
			return &b.slot[k]
		}
	}
	return b.more[i]
}

// add opens block i, which must not be open, with state st.
func (b *openBlocks) add(i int, st openBlock) *openBlock {
	for k := range b.slot {
		if b.slot[k].kind == "" {
			b.slot[k], b.index[k] = st, i
			return &b.slot[k]
		}
	}
	if b.more == nil {
		b.more = map[int]*openBlock{}
	}
	p := new(openBlock) // not &st: that would send every st to the heap
	*p = st
	b.more[i] = p
	return p
}

// remove ends block i (a no-op when it is not open).
func (b *openBlocks) remove(i int) {
	for k := range b.slot {
		if b.inUse(k, i) {
			b.slot[k] = openBlock{} // drops its buffered JSON too
			return
		}
	}
	delete(b.more, i)
}

// each calls fn with every open block's state.
func (b *openBlocks) each(fn func(*openBlock)) {
	for k := range b.slot {
		if b.slot[k].kind != "" {
			fn(&b.slot[k])
		}
	}
	for _, st := range b.more {
		fn(st)
	}
}

func (b *openBlocks) count() int {
	n := 0
	b.each(func(*openBlock) { n++ })
	return n
}
