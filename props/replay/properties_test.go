package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	model "github.com/frameproof/frameproof/model/replay"
	"github.com/frameproof/frameproof/model/wire"
	"pgregory.net/rapid"
)

func modelTarget(t impl.Target) model.Target {
	return model.Target{Wire: t.Wire, Provider: t.Provider, Model: t.Model, Vision: t.Vision}
}

func modelPrincipal(p *impl.Principal) *model.Principal {
	if p == nil {
		return nil
	}
	m := model.Principal(*p)
	return &m
}

func marshalRecord(msgs []pi.Appender) []byte {
	var b []byte
	for _, m := range msgs {
		b = m.AppendJSON(b)
		b = append(b, '\n')
	}
	return b
}

func maxRounds() int {
	if testing.Short() {
		return 4
	}
	return 8
}

// TestProjectionProperties: over generated (crash-damaged) transcripts,
// impl equals the model byte for byte, every validator accepts impl's
// output, the projection is deterministic and never modifies the record,
// and no doing becomes saying.
func TestProjectionProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		target := TargetGen().Draw(rt, "target")
		p := PrincipalGen().Draw(rt, "principal")
		msgs := TranscriptGen(target, maxRounds()).Draw(rt, "record")
		before := marshalRecord(msgs)

		got, err := impl.Project(msgs, target, impl.Options{Principal: p})
		want, merr := model.Project(msgs, modelTarget(target), modelPrincipal(p))
		if errors.Is(merr, model.ErrNothingToSend) {
			if !errors.Is(err, impl.ErrNothingToSend) {
				rt.Fatalf("model has nothing to send, impl: %v", err)
			}
			return
		}
		if merr != nil {
			rt.Fatalf("model: %v", merr)
		}
		if err != nil {
			rt.Fatalf("impl: %v", err)
		}
		if !bytes.Equal(got, want) {
			rt.Fatalf("impl and model differ\nimpl:  %s\nmodel: %s", got, want)
		}
		if err := wire.Validate(target.Wire, got, wire.Options{Vision: target.Vision, Model: target.Model}); err != nil {
			rt.Fatalf("%s rejects the projection: %v\n%s", target.Wire, err, got)
		}
		again, err := impl.Project(msgs, target, impl.Options{Principal: p})
		if err != nil {
			rt.Fatalf("second projection of the same record: %v", err)
		}
		if !bytes.Equal(got, again) {
			rt.Fatalf("projection is not deterministic")
		}
		if !bytes.Equal(before, marshalRecord(msgs)) {
			rt.Fatalf("projection modified the record")
		}
		checkNoSaying(rt, got)
		checkCallsAnsweredOnce(rt, target.Wire, got)
		checkEveryCallCrosses(rt, msgs, target.Wire, got)
	})
}

// checkNoSaying: no `Tool use:` prose; thinking text appears only inside a
// thinking block (Anthropic) or a thought part (Gemini), never as text.
func checkNoSaying(rt *rapid.T, body []byte) {
	if bytes.Contains(body, []byte("Tool use:")) {
		rt.Fatalf("`Tool use:` prose in %s", body)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		rt.Fatalf("body is not JSON: %v", err)
	}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == "thinking" || x["thought"] == true {
				return
			}
			for k, e := range x {
				walk(e, path+"."+k)
			}
		case []any:
			for _, e := range x {
				walk(e, path+"[]")
			}
		case string:
			if strings.Contains(x, ThinkMark) {
				rt.Fatalf("reasoning text outside a reasoning block at %s: %q", path, x)
			}
		}
	}
	walk(v, "$")
}

// callsAndAnswers lists call ids and answered ids on the id-carrying wires
// (names on Gemini). A body that is not JSON, lacks the wire's message
// list or holds a non-object message is an error, not an empty list.
func callsAndAnswers(wireName string, body []byte) (calls, answers []string, err error) {
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, nil, fmt.Errorf("%s body is not a JSON object: %w", wireName, err)
	}
	each := func(key string, fn func(m map[string]any)) {
		list, ok := v[key].([]any)
		if !ok {
			err = fmt.Errorf("%s body has no %q list", wireName, key)
			return
		}
		for i, e := range list {
			m, ok := e.(map[string]any)
			if !ok {
				err = fmt.Errorf("%s body: %s[%d] is not an object", wireName, key, i)
				return
			}
			fn(m)
		}
	}
	switch wireName {
	case impl.WireAnthropic:
		each("messages", func(m map[string]any) {
			blocks, _ := m["content"].([]any)
			for _, b := range blocks {
				bm, _ := b.(map[string]any)
				switch bm["type"] {
				case "tool_use":
					calls = append(calls, bm["id"].(string))
				case "tool_result":
					answers = append(answers, bm["tool_use_id"].(string))
				}
			}
		})
	case impl.WireOpenAIChat:
		each("messages", func(m map[string]any) {
			tc, _ := m["tool_calls"].([]any)
			for _, c := range tc {
				calls = append(calls, c.(map[string]any)["id"].(string))
			}
			if m["role"] == "tool" {
				answers = append(answers, m["tool_call_id"].(string))
			}
		})
	case impl.WireOpenAIResponses:
		each("input", func(m map[string]any) {
			switch m["type"] {
			case "function_call":
				calls = append(calls, m["call_id"].(string))
			case "function_call_output":
				answers = append(answers, m["call_id"].(string))
			}
		})
	case impl.WireGemini:
		each("contents", func(m map[string]any) {
			parts, _ := m["parts"].([]any)
			for _, p := range parts {
				pm, _ := p.(map[string]any)
				if fc, ok := pm["functionCall"].(map[string]any); ok {
					calls = append(calls, fc["name"].(string))
				}
				if fr, ok := pm["functionResponse"].(map[string]any); ok {
					answers = append(answers, fr["name"].(string))
				}
			}
		})
	default:
		return nil, nil, fmt.Errorf("unknown wire %q", wireName)
	}
	return calls, answers, err
}

// checkCallsAnsweredOnce: calls and answers are the same multiset (by id;
// by name on Gemini, whose validator checks turn-by-turn counts).
func checkCallsAnsweredOnce(rt *rapid.T, wireName string, body []byte) {
	calls, answers, err := callsAndAnswers(wireName, body)
	if err != nil {
		rt.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range calls {
		count[c]++
	}
	for _, a := range answers {
		count[a]--
	}
	for id, n := range count {
		if n != 0 {
			rt.Fatalf("call %s answered %d times too few", id, n)
		}
	}
	if wireName == impl.WireGemini {
		return
	}
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c] {
			rt.Fatalf("call id %s crosses twice", c)
		}
		seen[c] = true
	}
}

// checkEveryCallCrosses: every call of a settled response with a fresh id
// is on the wire (doing is kept as doing).
func checkEveryCallCrosses(rt *rapid.T, msgs []pi.Appender, wireName string, body []byte) {
	if wireName == impl.WireGemini {
		return // no ids on this wire
	}
	calls, _, err := callsAndAnswers(wireName, body)
	if err != nil {
		rt.Fatal(err)
	}
	on := map[string]bool{}
	for _, c := range calls {
		on[c] = true
	}
	for _, m := range msgs {
		a, ok := m.(*pi.AssistantMessage)
		if !ok || (a.StopReason != pi.StopStop && a.StopReason != pi.StopToolUse && a.StopReason != pi.StopLength) {
			continue
		}
		for _, c := range a.Content {
			if tc, ok := c.(pi.ToolCall); ok && tc.ID != "" && !on[tc.ID] {
				rt.Fatalf("settled call %s did not cross", tc.ID)
			}
		}
	}
}

// TestMicrocompactProperties: impl equals model, every call is kept,
// idempotent, and the projection of the compacted record is still valid.
func TestMicrocompactProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		target := TargetGen().Draw(rt, "target")
		msgs := TranscriptGen(target, maxRounds()).Draw(rt, "record")
		k := rapid.IntRange(0, 6).Draw(rt, "k")
		tools := []string{"bash", "read", "grep"}
		got, n, err := impl.Microcompact(msgs, impl.MicrocompactOptions{KeepRecent: k, Tools: tools})
		if err != nil {
			rt.Fatal(err)
		}
		want := model.Microcompact(msgs, k, tools)
		if !bytes.Equal(marshalRecord(got), marshalRecord(want)) {
			rt.Fatalf("impl and model microcompact differ")
		}
		if countCalls(got) != countCalls(msgs) || len(got) != len(msgs) {
			rt.Fatalf("microcompact dropped a call or a message")
		}
		again, n2, err := impl.Microcompact(got, impl.MicrocompactOptions{KeepRecent: k, Tools: tools})
		if err != nil {
			rt.Fatalf("second microcompact: %v", err)
		}
		if n2 != 0 || !bytes.Equal(marshalRecord(again), marshalRecord(got)) {
			rt.Fatalf("microcompact is not idempotent: second run cleared %d (first %d)", n2, n)
		}
		mc := impl.MicrocompactOptions{KeepRecent: k, Tools: tools}
		body, err := impl.Project(msgs, target, impl.Options{Microcompact: &mc})
		if errors.Is(err, impl.ErrNothingToSend) {
			return
		}
		if err != nil {
			rt.Fatal(err)
		}
		direct, merr := model.Project(want, modelTarget(target), nil)
		if errors.Is(merr, model.ErrNothingToSend) {
			rt.Fatalf("impl projects the compacted record, model has nothing to send")
		}
		if merr != nil {
			rt.Fatalf("model: %v", merr)
		}
		if !bytes.Equal(body, direct) {
			rt.Fatalf("Project with microcompact differs from model(compact(record))")
		}
		if err := wire.Validate(target.Wire, body, wire.Options{Vision: target.Vision, Model: target.Model}); err != nil {
			rt.Fatalf("%s rejects the compacted projection: %v", target.Wire, err)
		}
	})
}

func countCalls(msgs []pi.Appender) int {
	n := 0
	for _, m := range msgs {
		if a, ok := m.(*pi.AssistantMessage); ok {
			for _, c := range a.Content {
				if _, ok := c.(pi.ToolCall); ok {
					n++
				}
			}
		}
	}
	return n
}

// callsAndAnswers fails on what it cannot read instead of finding no calls.
func TestCallsAndAnswersRejectsUnreadableBodies(t *testing.T) {
	for _, c := range []struct{ wire, body string }{
		{impl.WireAnthropic, `not json`},
		{impl.WireAnthropic, `{"model":"m"}`},
		{impl.WireOpenAIResponses, `{"input":[1]}`},
		{"no-such-wire", `{}`},
	} {
		_, _, err := callsAndAnswers(c.wire, []byte(c.body))
		if err == nil {
			t.Errorf("%s %s: no error", c.wire, c.body)
		}
	}
	calls, answers, err := callsAndAnswers(impl.WireOpenAIResponses,
		[]byte(`{"input":[{"type":"function_call","call_id":"a"},{"type":"function_call_output","call_id":"a"}]}`))
	if err != nil || len(calls) != 1 || len(answers) != 1 {
		t.Errorf("calls %v answers %v err %v", calls, answers, err)
	}
}
