package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// serveLinesOn runs requests against a JSONL store in dir and returns the
// response lines after the hello.
func serveLinesOn(t *testing.T, dir string, requests ...string) []string {
	t.Helper()
	st, err := Open(env.Production(), "jsonl", dir, backends.Options{Sync: backends.SyncNever})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Serve(st, "jsonl", "test", strings.NewReader(strings.Join(requests, "\n")+"\n"), &out))
	var lines []string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines[1:]
}

// An entry id holding a lone surrogate escape is the JS string node's
// JSON.parse makes of it, live and after a reopen alike: the live store
// used to hold encoding/json's U+FFFD, so the committed entry could not be
// found by its own id once the file was reopened. pi: session/jsonl/
// storage.ts JsonlStorage.open reads the file (readTextFile) and JSON.parse
// keeps the escape's code unit; its maps key the entry by that string.
func TestLoneSurrogateNamesSurviveAReopen(t *testing.T) {
	dir := t.TempDir()
	commit := `{"id":1,"op":"commit","writes":[` +
		`{"kind":"entry","entry":{"type":"custom","customType":"x","id":"\ud800a","parentId":null}},` +
		`{"kind":"value","op":"set","namespace":"n","key":"k","value":1}]}`
	getEntry := `{"id":2,"op":"getEntries","ids":["\ud800a"]}`
	getValue := `{"id":3,"op":"getValue","address":{"namespace":"n","key":"k"}}`
	live := serveLinesOn(t, dir, commit, getEntry, getValue)
	reopened := serveLinesOn(t, dir, getEntry, getValue)
	for _, lines := range [][]string{live[1:], reopened} {
		var entries struct{ Result []json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &entries), lines[0])
		require.Len(t, entries.Result, 1, "getEntries by the committed id: %s (commit: %s)", lines[0], live[0])
		require.Contains(t, lines[1], `"value":1`, "getValue at the committed address")
	}
	require.Contains(t, live[0], `"seqs":[1,2]`)
}
