package bench

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/store"
)

// The Go floor under pi's scenarios: the least work any Go store does for
// one, with nothing of a store around it. A store's time is the floor plus
// what it adds; pi's time over the floor is the most that any Go store's
// ratio to pi could be, which is what a target above it is measured
// against (the floor column of the table).

// piFloorStore is the least a Go store does to commit pi's write
// scenarios: ids in a map (an entry's parent looked up there, a map sized
// by a first commit of many rows), rows in a slice, values in a map, the
// seqs returned. No lock, clock, JSON, stats, tree or file.
type piFloorStore struct {
	ids    map[string]int32
	rows   []store.Write
	values map[floorAddress]json.RawMessage
	next   int64
}

type floorAddress struct{ namespace, key string }

func newPiFloorStore() *piFloorStore {
	return &piFloorStore{ids: map[string]int32{}, values: map[floorAddress]json.RawMessage{}, next: 1}
}

// Commit takes pi's entries, usage rows and value sets as they are.
func (f *piFloorStore) Commit(writes []store.Write) (store.CommitResult, error) {
	if len(f.ids) == 0 && len(writes) > 1 {
		f.ids = make(map[string]int32, len(writes))
	}
	f.rows = slices.Grow(f.rows, len(writes))
	for _, w := range writes {
		switch w.Kind {
		case store.WriteEntry, store.WriteUsage:
			id, parent := "", (*string)(nil)
			if w.Kind == store.WriteEntry {
				id, parent = w.Entry.ID, w.Entry.ParentID
			} else {
				id = w.Usage.ID
			}
			if _, dup := f.ids[id]; dup {
				return store.CommitResult{}, fmt.Errorf("floor: duplicate id %s", id)
			}
			if parent != nil {
				if _, ok := f.ids[*parent]; !ok {
					return store.CommitResult{}, fmt.Errorf("floor: missing parent %s", *parent)
				}
			}
			f.ids[id] = int32(len(f.rows))
			f.rows = append(f.rows, w)
		case store.WriteValue:
			f.values[floorAddress{w.Namespace, w.Key}] = w.Value
		default:
			return store.CommitResult{}, fmt.Errorf("floor: no %s writes", w.Kind)
		}
	}
	seqs := make([]int64, len(writes))
	for i := range seqs {
		seqs[i] = f.next + int64(i)
	}
	f.next += int64(len(writes))
	return store.CommitResult{FirstSeq: seqs[0], Seqs: seqs}, nil
}

func (f *piFloorStore) Close() error { return nil }

// piFloorIndex is the floor under get-100: the dataset's ids in a Go map
// to their positions.
func piFloorIndex(entries int) map[string]int32 {
	index := make(map[string]int32, entries)
	for i := range entries {
		index[piBenchEntryID(i)] = int32(i)
	}
	return index
}

// piFloorGet is get-100 on the floor: pi's copy of the ids, each looked
// up, the positions returned.
func piFloorGet(index map[string]int32, lookups []string) (int, error) {
	ids := slices.Clone(lookups) // pi's [...dataset.lookupIds]
	pos := make([]int32, 0, len(ids))
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			return 0, fmt.Errorf("floor: no entry %s", id)
		}
		pos = append(pos, i)
	}
	return len(pos), nil
}
