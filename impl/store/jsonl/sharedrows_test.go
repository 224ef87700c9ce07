package jsonl

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// Open cuts entry and usage rows out of the file buffer in place (their
// surrounding commas made braces). The rows must be exactly the committed
// ones, a torn-tail repair must write the file's own bytes back (the
// buffer is shared only when nothing is written back), and appending to a
// row must not reach the next one.
func TestSharedRowsMatchCommittedAndLeaveRepairsAlone(t *testing.T) {
	m := newMemFS()
	s := newStore(t, m, Options{Sync: SyncNever})
	var parent *string
	for tx := range 4 {
		var ws []store.Write
		for k := range tx + 1 {
			id := fmt.Sprintf("e%d-%d", tx, k)
			raw := fmt.Sprintf(`{"id":%q,"parentId":%s,"type":"message","message":{"role":"user","content":"x,y}{"}}`, id, jsonOrNull(parent))
			ws = append(ws, store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)}))
			p := id
			parent = &p
		}
		ws = append(ws, store.InsertUsage(store.UsageRow{ID: fmt.Sprintf("u%d", tx), Raw: json.RawMessage(fmt.Sprintf(`{"id":"u%d","usage":{"cost":{"total":1}}}`, tx))}))
		_, err := s.Commit(ws)
		require.NoError(t, err)
	}
	wantEntries, wantUsage := s.state.Entries(), s.state.Usage()
	require.NoError(t, s.Close())
	file := append([]byte(nil), m.content(path)...)

	again, err := Open(testEnv(m), path, Options{Sync: SyncNever})
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(wantEntries, again.state.Entries()))
	require.Empty(t, cmp.Diff(wantUsage, again.state.Usage()))
	es := again.state.Entries()
	_ = append(es[0].Entry.Raw, "!!!!"...)
	require.Equal(t, string(wantEntries[1].Entry.Raw), string(again.state.Entries()[1].Entry.Raw))
	require.NoError(t, again.Close())
	require.Equal(t, string(file), string(m.content(path)))

	// a torn tail: the repair writes back the complete lines unchanged
	m.put(path, append(append([]byte(nil), file...), `{"kind":"entry","id":"torn`...))
	torn, err := Open(testEnv(m), path, Options{Sync: SyncNever})
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(wantEntries, torn.state.Entries()))
	require.NoError(t, torn.Close())
	require.Equal(t, string(file), string(m.content(path)))
}

func jsonOrNull(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}
