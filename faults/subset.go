package faults

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/frameproof/frameproof/sim/choice"
)

// crashFileSubset decides the disk content of one file in a subset crash.
//
// Truncations are metadata: either all of them reached the disk or none
// did (a file system orders them with the inode's size). With them, the
// writes after the last truncation count; without, only the writes before
// the first one (later writes target offsets the old content still holds,
// and their size change never committed). Those writes are laid out at
// their file offsets and cut at block boundaries; each piece survives or
// not, independently. The file ends at the last surviving piece: dropped
// pieces before it read as zeros. (Junk after the end is prefix mode's
// business; leaving it out keeps a subset crash's decisions one bit per
// piece, so a sweep enumerates them all.)
func (f *FS) crashFileSubset(c choice.Source, path string, ino *inode) FileCrash {
	fc := FileCrash{Path: path, OpsPending: len(ino.pending)} // OpsKept: the truncation and writes with a surviving piece
	base, ops := ino.durable, ino.pending
	if first, last := truncBounds(ops); first >= 0 {
		if c.Intn("crash: truncation kept of "+path, 2) == 1 {
			base, ops = nil, ops[last+1:]
			fc.OpsKept = 1
		} else {
			ops = ops[:first]
		}
	}
	block := f.opts.BlockSize
	if block <= 0 {
		block = DefaultBlockSize
	}
	content := append([]byte(nil), base...)
	end, off := len(content), len(content)
	for _, op := range ops {
		kept := false
		for start := 0; start < len(op.data); {
			n := min(len(op.data)-start, block-(off+start)%block)
			fc.BlocksPending++
			if c.Intn("crash: block kept of "+path, 2) == 1 {
				fc.BlocksKept++
				kept = true
				content = place(content, off+start, op.data[start:start+n], op.lost)
				end = max(end, off+start+n)
			}
			start += n
		}
		if kept {
			fc.OpsKept++
		}
		off += len(op.data)
	}
	ino.durable = content[:end]
	fc.FinalLength = end
	return fc
}

// truncBounds returns the indexes of the first and last truncation in ops
// (-1, -1 when there is none).
func truncBounds(ops []pendingOp) (first, last int) {
	first, last = -1, -1
	for i, op := range ops {
		if op.trunc {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	return first, last
}

// place writes data at offset off of content, growing it with zeros as
// needed; a lost write (failed fsync) places zeros.
func place(content []byte, off int, data []byte, lost bool) []byte {
	if need := off + len(data); need > len(content) {
		content = append(content, make([]byte, need-len(content))...)
	}
	if !lost {
		copy(content[off:], data)
	}
	return content
}

// Image returns a hash of what the disk holds now (durable names and their
// durable content), the identity of a crash state.
func (f *FS) Image() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.imageLocked()
}

func (f *FS) imageLocked() uint64 {
	h := fnv.New64a()
	var n [8]byte
	for _, p := range sortedKeys(f.durableNames) {
		data := f.durableNames[p].durable
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
		binary.LittleEndian.PutUint64(n[:], uint64(len(data)))
		h.Write(n[:])
		h.Write(data)
	}
	return h.Sum64()
}

// Clone returns an independent copy of the file system's state (names,
// durable and pending data, journal), for trying many crashes of one
// moment. Open handles and injected faults are not copied: handles of the
// original do not reach the copy.
func (f *FS) Clone(choices choice.Source) *FS {
	f.mu.Lock()
	defer f.mu.Unlock()
	g := NewFSWith(choices, f.opts)
	inos := map[*inode]*inode{}
	dup := func(ino *inode) *inode {
		if c, ok := inos[ino]; ok {
			return c
		}
		c := &inode{id: ino.id, durable: append([]byte(nil), ino.durable...),
			pending: append([]pendingOp(nil), ino.pending...), visible: append([]byte(nil), ino.visible...)}
		inos[ino] = c
		return c
	}
	for d := range f.dirs {
		g.dirs[d] = true
	}
	for p, ino := range f.names {
		g.names[p] = dup(ino)
	}
	for p, ino := range f.durableNames {
		g.durableNames[p] = dup(ino)
	}
	for _, op := range f.journal {
		op.ino = dup(op.ino)
		g.journal = append(g.journal, op)
	}
	g.nextIno, g.ops, g.syncLies = f.nextIno, f.ops, f.syncLies
	return g
}
