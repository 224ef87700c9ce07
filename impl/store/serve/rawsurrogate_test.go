package serve

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// An id sent as the raw bytes of an encoded surrogate (ED A0 80, no UTF-8)
// reads as node reads the line, three U+FFFD, live as on the file's
// reopen; only the escape \ud800 is the lone code unit. A review found the
// live store taking the raw bytes for the code unit, acknowledging a child
// that named the escape as its parent, and the file then not reopening.
// pi: session/jsonl/storage.ts JsonlStorage.open reads the file through
// NodeExecutionEnv.readTextFile (node's UTF-8 decoding), then JSON.parse.
func TestRawSurrogateBytesReadAsNodeReadsThem(t *testing.T) {
	dir := t.TempDir()
	commit := `{"id":1,"op":"commit","writes":[` +
		`{"kind":"entry","entry":{"type":"custom","customType":"x","id":"a` + "\xed\xa0\x80" + `","parentId":null}},` +
		`{"kind":"entry","entry":{"type":"custom","customType":"x","id":"b","parentId":"a\ud800"}}]}`
	live := serveLinesOn(t, dir, commit)
	require.Contains(t, live[0], `Missing parent entry`, "the escape names no entry the raw bytes made")
	live = serveLinesOn(t, dir, `{"id":1,"op":"commit","writes":[`+
		`{"kind":"entry","entry":{"type":"custom","customType":"x","id":"a`+"\xed\xa0\x80"+`","parentId":null}}]}`,
		`{"id":2,"op":"getEntries","ids":["a\ufffd\ufffd\ufffd"]}`)
	require.Contains(t, live[1], `"seq":1`, "found live by node's reading of its id")
	st, err := Open(env.Production(), "jsonl", dir, backends.Options{Sync: backends.SyncNever})
	require.NoError(t, err, "the file reopens")
	es, err := st.GetEntries([]string{"a\uFFFD\uFFFD\uFFFD"})
	require.NoError(t, err)
	require.Equal(t, 1, es.Len(), "found after the reopen by the same id")
	require.NoError(t, st.Close())
}
