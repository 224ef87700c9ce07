package jsonl

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The memo takes no checkpoint right after an array's '[' (a long string
// as the array's first element): the whole scan of '[' peeks for ']' (an
// empty array), and a resume there would start at a value position with
// '[' already on the stack, refusing a value that shares the prefix up to
// the '[' and then closes the array empty.
func TestMemoCheckpointAfterOpenBracket(t *testing.T) {
	long := `"` + strings.Repeat("x", 40) + `"`
	for _, second := range []string{`{"a":[]}`, `{"a":[ ]}`, `{"a":[]  }`} {
		var memo scanner
		first := []byte(`{"a":[` + long + `]}`)
		memo.reset(first)
		if _, ok := memo.scalarOrValue(0); !ok {
			t.Fatal("first value refused")
		}
		whole := scanner{noMemo: true}
		whole.reset([]byte(second))
		wantEnd, wantOK := whole.scalarOrValue(0)
		memo.reset([]byte(second))
		end, ok := memo.scalarOrValue(0)
		if ok != wantOK || end != wantEnd {
			t.Errorf("%s after %s (memo prefix %q): memo %d %v, whole %d %v", second, first, memo.memo.prefix, end, ok, wantEnd, wantOK)
		}
	}
}

// The same through Open: a message whose content is an array of strings,
// then one whose content is empty, opens with the memo as it does line by
// line without it (before the fix, Open failed on line 3).
func TestOpenEmptyContentAfterStringContent(t *testing.T) {
	long := strings.Repeat("x", 40)
	content := hdr +
		`{"seq":1,"kind":"entry","timestamp":1,"id":"e1","parentId":null,"type":"message","message":{"role":"user","content":["` + long + `"]}}` + "\n" +
		`{"seq":2,"kind":"entry","timestamp":1,"id":"e2","parentId":"e1","type":"message","message":{"role":"user","content":[]}}` + "\n"
	rapid.Check(t, func(rt *rapid.T) {
		got := fullOutcome(rt, content, Options{})
		want := fullOutcome(rt, content, Options{lineByLine: true, noMemo: true})
		if got != want {
			rt.Fatalf("memo:\n%s\nline by line, no memo:\n%s", got, want)
		}
	})
}
