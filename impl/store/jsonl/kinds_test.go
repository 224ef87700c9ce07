package jsonl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// TestOpenReadsEntryKindsAsKindOf: an entry's kind taken from the line
// while it is parsed (its row copied from a compact line) is KindOf of the
// row stored; lines off that path (space, escaped, repeated or
// integer-like keys) are read from the row, and agree too.
func TestOpenReadsEntryKindsAsKindOf(t *testing.T) {
	lines := []string{
		`{"kind":"entry","type":"message","id":"a","parentId":null,"message":{"type":"nested"},"seq":1,"timestamp":5}`,
		`[{"kind":"entry","type":"custom","customType":"note","id":"b","parentId":"a","seq":2,"timestamp":5},{"kind":"entry","id":"c","parentId":"b","seq":3,"timestamp":5}]`,
		`{"kind":"entry","type":7,"customType":{"x":[1,"y"]},"id":"d","parentId":"c","seq":4,"timestamp":5}`,
		`{"kind": "entry", "type": "compaction", "id": "e", "parentId": "d", "seq": 5, "timestamp": 5}`,
		`{"kind":"entry","typ\u0065":"escaped","customType":"k","id":"f","parentId":"e","seq":6,"timestamp":5}`,
		`{"kind":"entry","type":"one","type":"two","id":"g","parentId":"f","seq":7,"timestamp":5}`,
		`{"kind":"entry","1":"integer-like","type":"custom","customType":"c\"q","id":"h","parentId":"g","seq":8,"timestamp":5}`,
		`{"kind":"entry","type":"\u00e9","id":"i","parentId":"h","seq":9,"timestamp":5}`,
	}
	m := newMemFS()
	file := `{"v":4,"kind":"header","id":"sess","storageVersion":1,"createdAt":1000,"cwd":"/w"}` + "\n"
	for _, l := range lines {
		file += l + "\n"
	}
	m.files[path] = []byte(file)
	s, err := Open(testEnv(m), path, Options{Sync: SyncNever})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close()) }()
	entries, err := s.Entries()
	require.NoError(t, err)
	require.Len(t, entries, 9)
	for _, e := range entries {
		st, err := s.ScanBranchStructure(store.BranchScan{Start: e.Entry.ID, Limit: ptrTo(int64(1))})
		require.NoError(t, err)
		require.Equal(t, 1, st.Len())
		k := store.KindOf(e.Entry.Raw)
		assert.Equal(t, k, store.EntryKind{Type: st.At(0).Type, CustomType: st.At(0).CustomType}, "%s: %s", e.Entry.ID, e.Entry.Raw)
	}
}

func ptrTo[T any](v T) *T { return &v }
