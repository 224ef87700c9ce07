package serve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// A scripted conversation with ServeRepo: the responses pi's SessionRepo
// adapter (session-repo-adapter.mjs) relies on, for both repositories.
func TestServeRepoScript(t *testing.T) {
	for _, backend := range RepoBackends {
		t.Run(backend, func(t *testing.T) {
			e := env.Env{Clock: envtest.NewClock(1_700_000_000_000), FS: env.OSFS{}, IDs: envtest.IDsAfter(0), Executor: env.Goroutines{}}
			repo, err := OpenRepo(e, backend, t.TempDir(), "", backends.Options{Sync: backends.SyncNever})
			require.NoError(t, err)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- ServeRepo(repo, backend, "test", inR, outW)
				outW.Close()
			}()
			lines := bufio.NewScanner(outR)
			require.True(t, lines.Scan())
			var hello Hello
			require.NoError(t, json.Unmarshal(lines.Bytes(), &hello))
			assert.Equal(t, newHello(RepoProtocolName, RepoProtocolVersion, "test", backend), hello)
			n := 0
			call := func(req string) map[string]any {
				n++
				_, err := fmt.Fprintf(inW, `{"id":%d,%s}`+"\n", n, req)
				require.NoError(t, err)
				require.True(t, lines.Scan())
				var m map[string]any
				require.NoError(t, json.Unmarshal(lines.Bytes(), &m))
				assert.Equal(t, float64(n), m["id"])
				return m
			}
			created := call(`"op":"repo.create","options":{"id":"s"}`)["result"].(map[string]any)
			assert.Equal(t, float64(1), created["session"])
			meta, err := json.Marshal(created["metadata"])
			require.NoError(t, err)
			assert.Equal(t, float64(1), call(`"op":"commit","session":1,"writes":[{"kind":"value","op":"set","namespace":"pi.session.name","key":"","value":"n"}]`)["result"].(map[string]any)["firstSeq"])
			assert.Equal(t, map[string]any{"message": "Session already exists: s"}, call(`"op":"repo.create","options":{"id":"s"}`)["error"])
			assert.Equal(t, map[string]any{"message": "Session is already open: s"}, call(`"op":"repo.open","metadata":` + string(meta))["error"])
			assert.Nil(t, call(`"op":"close","session":1`)["error"])
			assert.Equal(t, map[string]any{"message": "Session is closed"}, call(`"op":"getStats","session":1`)["error"])
			assert.Equal(t, "unknown session handle 9", call(`"op":"getStats","session":9`)["protocolError"])
			assert.Len(t, call(`"op":"repo.list"`)["result"], 1)
			forked := call(`"op":"repo.fork","source":` + string(meta) + `,"options":{"scope":"tree","id":"f"}`)["result"].(map[string]any)
			assert.Equal(t, float64(2), forked["session"])
			assert.Equal(t, "s", forked["metadata"].(map[string]any)["parentSessionId"])
			assert.Equal(t, "n", call(`"op":"getValue","session":2,"address":{"namespace":"pi.session.name","key":""}`)["result"].(map[string]any)["value"])
			reopened := call(`"op":"repo.open","metadata":` + string(meta))["result"].(map[string]any)
			assert.Equal(t, float64(3), reopened["session"])
			assert.Contains(t, call(`"op":"repo.nope"`)["protocolError"], "unknown op")
			require.NoError(t, inW.Close())
			require.NoError(t, <-done, "EOF closes the open sessions and the repository")
		})
	}
}
