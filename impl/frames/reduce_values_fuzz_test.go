package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// Any stored JSON list reduces without a panic, and a reduced message is
// always serializable JSON.
func FuzzReduceValues(f *testing.F) {
	p := `{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","stopReason":"pending","timestamp":1}`
	for _, s := range []string{
		`[{"type":"start","partial":` + p + `},{"type":"citation"},{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a"}},{"type":"text_delta","contentIndex":0}]`,
		`[{"type":"start","partial":` + p + `},{"type":"toolcall_start","contentIndex":0,"toolCall":{"type":"toolCall"}},{"type":"toolcall_checkpoint","contentIndex":0,"json":[1]},{"type":"toolcall_delta","contentIndex":0,"delta":{}}]`,
		`[{"type":"start","partial":{"content":{"length":0}}},{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking"}}]`,
		`[{"type":"start","partial":"x"},null,7,[],{"type":["a",[null]]}]`,
		`[{"type":"start","partial":` + p + `},{"type":"thinking_start","contentIndex":0,"content":{"type":"thinking","thinking":1}},{"type":"thinking_delta","contentIndex":0,"delta":true},{"type":"thinking_end","contentIndex":0,"redacted":null}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		v, err := pi.ParseJSON(list)
		if err != nil || v.Kind() != pi.Array {
			return
		}
		m, err := ReduceValues(v.Array())
		if err != nil || m.IsUndefined() {
			return
		}
		if _, err := pi.ParseJSON(string(m.AppendJSON(nil))); err != nil {
			t.Fatalf("reduction of %s does not re-parse: %v", list, err)
		}
	})
}
