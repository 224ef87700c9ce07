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
	return serveLinesOnBackend(t, "jsonl", dir, requests...)
}

func serveLinesOnBackend(t *testing.T, backend, dir string, requests ...string) []string {
	t.Helper()
	st, err := Open(env.Production(), backend, dir, backends.Options{Sync: backends.SyncNever})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, Serve(st, backend, "test", strings.NewReader(strings.Join(requests, "\n")+"\n"), &out))
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

// Value and list addresses are JS strings too: keys that differ only in a
// lone surrogate are two cells in pi's maps (values.ts, keyed by
// `${namespace}\u0000${key}`) and in the store's file, live and after a
// reopen. Read with encoding/json, both were U+FFFD: the second set
// overwrote the first, and the answer named neither key as sent.
func TestLoneSurrogateAddressesStayDistinct(t *testing.T) {
	commit := `{"id":1,"op":"commit","writes":[` +
		`{"kind":"value","op":"set","namespace":"n\ud800","key":"\ud800","value":1},` +
		`{"kind":"value","op":"set","namespace":"n\ud800","key":"\ud801","value":2},` +
		`{"kind":"list","op":"append","namespace":"n\ud800","key":"\udc00","value":3}]}`
	reads := []string{
		`{"id":2,"op":"scanValues","prefix":{"namespace":"n\ud800","key":""}}`,
		`{"id":3,"op":"getValue","address":{"namespace":"n\ud800","key":"\ud801"}}`,
		`{"id":4,"op":"readList","address":{"namespace":"n\ud800","key":"\udc00"}}`,
		`{"id":5,"op":"readList","address":{"namespace":"n\ud800","key":"\udc01"}}`,
	}
	check := func(t *testing.T, lines []string) {
		require.Contains(t, lines[0], `{"key":"\ud800","kind":"value","namespace":"n\ud800"},"seq":1,"value":1`)
		require.Contains(t, lines[0], `{"key":"\ud801","kind":"value","namespace":"n\ud800"},"seq":2,"value":2`)
		require.Contains(t, lines[1], `"key":"\ud801"`)
		require.Contains(t, lines[1], `"value":2`)
		require.Contains(t, lines[2], `{"seq":3,"value":3}`)
		require.Contains(t, lines[3], `"result":[]`)
	}
	for _, b := range backends.All() {
		t.Run(b.Name, func(t *testing.T) {
			dir := t.TempDir()
			live := serveLinesOnBackend(t, b.Name, dir, append([]string{commit}, reads...)...)
			require.Contains(t, live[0], `"seqs":[1,2,3]`)
			check(t, live[1:])
			if b.Durable {
				check(t, serveLinesOnBackend(t, b.Name, dir, reads...))
			}
		})
	}
}
