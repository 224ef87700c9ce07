package jsonl

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/store"
)

// TestAnyCutRecoversACommitPrefix: cutting the file at any byte and reopening
// never errors and yields exactly the state after the commits whose lines are
// complete — never part of a commit.
func TestAnyCutRecoversACommitPrefix(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := newMemFS()
		s := newStore(t, m, Options{Sync: SyncNever})
		type point struct {
			end  int
			next int64
			list int
		}
		points := []point{{end: len(m.content(path)), next: 1}}
		l := store.Address{Namespace: "pi.pending.assistant_frame", Key: "o:r", Kind: store.KindList}
		n := 0
		for i := range rapid.IntRange(1, 12).Draw(rt, "commits") {
			var ws []store.Write
			if rapid.IntRange(0, 4).Draw(rt, "del") == 0 {
				ws = append(ws, store.DeleteListRaw(l))
				n = 0
			}
			for range rapid.IntRange(1, 4).Draw(rt, "appends") {
				ws = append(ws, store.AppendListRaw(l, json.RawMessage(fmt.Sprintf(`{"i":%d,"s":"\u00e9\n"}`, i))))
				n++
			}
			_, err := s.Commit(ws)
			require.NoError(rt, err)
			points = append(points, point{end: len(m.content(path)), next: s.NextSeq(), list: n})
		}
		full := m.content(path)
		cut := rapid.IntRange(points[0].end, len(full)).Draw(rt, "cut")
		m.put(path, full[:cut])
		want := points[0]
		for _, p := range points {
			if p.end <= cut {
				want = p
			}
		}
		r, err := Open(testEnv(m), path, Options{})
		require.NoError(rt, err, "a torn tail never errors")
		require.Equal(rt, want.next, r.NextSeq())
		els, err := r.ReadList(l, store.ReadOptions{})
		require.NoError(rt, err)
		require.Len(rt, els, want.list)
		if d := cmp.Diff(string(full[:want.end]), string(m.content(path))); d != "" {
			rt.Fatalf("file not truncated to the last complete line:\n%s", d)
		}
	})
}
