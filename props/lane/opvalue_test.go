package lane

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

// rewriteValues returns a Rewrite that applies f to the value of every set
// of namespace ns.
func rewriteValues(ns string, f func([]byte) []byte) func([]store.Write) []store.Write {
	return func(ws []store.Write) []store.Write {
		out := append([]store.Write(nil), ws...)
		for i, w := range out {
			if w.Kind == store.WriteValue && w.Op == store.OpSet && w.Namespace == ns {
				out[i].Value = f(append([]byte(nil), w.Value...))
			}
		}
		return out
	}
}

var attemptField = regexp.MustCompile(`"attempt":(\d+)`)

// An implementation that writes a wrong value into an operation meta, an
// operation state or a lane state fails the lockstep comparison, by the transaction comparison where
// the committed state read back keeps no such field (the control's status
// string, the stream options, the inbox): the model states each op-state
// and lane-state value byte for byte (runtime/lane.ts, runtime/drive/*.ts).
// A wrong attempt is also visible in the state read back, which may see it
// first.
func TestWrongStateValuesCaught(t *testing.T) {
	mutants := map[string]func([]store.Write) []store.Write{
		"control status": rewriteValues(lane.NSOpState, func(v []byte) []byte {
			return bytes.Replace(v, []byte(`"status":"running"`), []byte(`"status":"Running"`), 1)
		}),
		"attempt (or read back)": rewriteValues(lane.NSOpState, func(v []byte) []byte {
			return attemptField.ReplaceAllFunc(v, func(m []byte) []byte {
				n, _ := strconv.Atoi(string(attemptField.FindSubmatch(m)[1]))
				return []byte(`"attempt":` + strconv.Itoa(n+1))
			})
		}),
		"stream options": rewriteValues(lane.NSOpState, func(v []byte) []byte {
			return bytes.Replace(v, []byte(`"maxTokens":4096`), []byte(`"maxTokens":8192`), 1)
		}),
		// runtime/lane.ts acceptRun: the meta impl wrote before it followed pi
		"op meta": rewriteValues(lane.NSOpMeta, func(v []byte) []byte {
			return bytes.Replace(v, []byte(`"lane":"main",`), nil, 1)
		}),
		// the inbox is also read back from storage (lanecmp), which may see
		// it first
		"lane inbox (or read back)": rewriteValues(lane.NSLaneState, func(v []byte) []byte {
			return bytes.Replace(v, []byte(`"inbox":[]`), []byte(`"inbox":[{"entryId":"x","kind":"write"}]`), 1)
		}),
	}
	for name, rewrite := range mutants {
		t.Run(name, func(t *testing.T) {
			seed, err := firstDetection(Options{Rewrite: rewrite, Actions: 12, Deferred: true}, 100)
			if seed < 0 {
				t.Fatalf("a wrong %s was not caught in 100 seeds", name)
			}
			if !strings.Contains(name, "read back") && !strings.Contains(err.Error(), "transaction writes differ") {
				t.Fatalf("caught, but not by the transaction comparison: %.300v", err)
			}
			t.Logf("caught at seed %d", seed)
		})
	}
}
