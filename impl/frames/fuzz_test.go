package frames

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// Arbitrary input never panics; results are always serializable.

func FuzzParseStreamingJSON(f *testing.F) {
	for _, s := range []string{"", "{", `{"a":[1,"b`, `{"__proto__":null,"__proto__":1`, `[1e`, `-I`, "\"\\ud83d", `{a:1}`, `[}`, `{"a":"\x01`, "\xed\xa0\xbd", "[[[[[[[", `{"1":2,"0":[nu`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseStreamingJSON(s)
		if v.IsUndefined() {
			t.Fatalf("undefined result for %q", s)
		}
		if _, err := pi.ParseJSON(string(v.AppendJSON(nil))); err != nil {
			t.Fatalf("result of %q does not re-parse: %v", s, err)
		}
	})
}

const fuzzPartial = `{"role":"assistant","content":[{"type":"text","text":"ab"},{"type":"toolCall","id":"i","name":"n","arguments":{"a":1}}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}`

func FuzzEncode(f *testing.F) {
	f.Add(`{"type":"start","partial":` + fuzzPartial + "}\n" +
		`{"type":"text_start","contentIndex":0,"partial":` + fuzzPartial + "}\n" +
		`{"type":"text_delta","contentIndex":0,"delta":"abc","partial":` + fuzzPartial + "}\n" +
		`{"type":"toolcall_start","contentIndex":1,"partial":` + fuzzPartial + "}\n" +
		`{"type":"toolcall_delta","contentIndex":1,"delta":"{\"a\":1","partial":` + fuzzPartial + "}\n" +
		`{"type":"done","reason":"stop","message":` + fuzzPartial + "}")
	f.Fuzz(func(t *testing.T, jsonl string) {
		enc, app := NewEncoder(), NewEncoder()
		var fs []pi.Frame
		whole := true // every line was an event the encoder accepted
		for _, line := range strings.Split(jsonl, "\n") {
			ev, err := pi.ParseEvent(line)
			if err != nil {
				whole = false
				continue
			}
			fr, err := enc.Encode(ev)
			got, framed, appErr := app.AppendFrame(nil, ev)
			if errText(err) != errText(appErr) || (fr != nil) != framed {
				t.Fatalf("AppendFrame (%s, framed %v) disagrees with Encode (%s, %v) on %s", errText(appErr), framed, errText(err), fr != nil, line)
			}
			if err != nil {
				whole = false
				continue
			}
			if fr != nil {
				fs = append(fs, *fr)
				if want := fr.AppendJSON(nil); string(got) != string(want) {
					t.Fatalf("AppendFrame wrote %s, Encode's frame is %s", got, want)
				}
			}
		}
		// A skipped line can leave a gap pi-ai's reducer refuses too
		// ("would leave a gap", utils/assistant-message-frame.js), so only
		// the frames of a whole stream must reduce.
		if _, err := Reduce(fs); err != nil && whole {
			t.Fatalf("frames of a whole encoded stream do not reduce: %v", err)
		}
	})
}

func FuzzReduce(f *testing.F) {
	f.Add(`{"type":"start","partial":` + strings.Replace(fuzzPartial, `"content":[{"type":"text","text":"ab"},{"type":"toolCall","id":"i","name":"n","arguments":{"a":1}}]`, `"content":[]`, 1) + "}\n" +
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"a"}}` + "\n" +
		`{"type":"text_delta","contentIndex":0,"delta":"b"}` + "\n" +
		`{"type":"toolcall_start","contentIndex":1,"toolCall":{"type":"toolCall","id":"i","name":"n","arguments":{}}}` + "\n" +
		`{"type":"toolcall_delta","contentIndex":1,"delta":"{\"x\":[1,"}`)
	f.Fuzz(func(t *testing.T, jsonl string) {
		var fs []pi.Frame
		for _, line := range strings.Split(jsonl, "\n") {
			if fr, err := pi.ParseFrame(line); err == nil {
				fs = append(fs, *fr)
			}
		}
		if m, err := Reduce(fs); err == nil && m != nil {
			m.AppendJSON(nil)
		}
	})
}
