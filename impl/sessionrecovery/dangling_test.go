package sessionrecovery

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// TestDanglingTipIsBroken: a lane whose branch tip names no entry is
// reported broken; a tip on a stored entry (the completed session's) is not.
func TestDanglingTipIsBroken(t *testing.T) {
	p := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(p, completeSession(t), 0o644))
	r, err := Inspect(testEnv(), p, Options{})
	require.NoError(t, err)
	assert.Empty(t, r.Broken)

	st, err := jsonl.Open(testEnv(), p, jsonl.Options{Sync: jsonl.SyncNever})
	require.NoError(t, err)
	tip, err := json.Marshal("nowhere")
	require.NoError(t, err)
	_, err = st.Commit([]store.Write{store.SetValueRaw(lane.BranchTipAddr("main"), tip)})
	require.NoError(t, err)
	require.NoError(t, st.Close())
	r, err = Inspect(testEnv(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, []Broken{{"dangling branch tip", `lane "main": tip nowhere names no entry`}}, r.Broken)
}
