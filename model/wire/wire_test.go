package wire

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Valid requests, one per wire: a user prompt with an image, an assistant
// round with two parallel calls answered in order, a second round, text.
const validAnthropic = `{"model":"claude-x","max_tokens":1024,"messages":[
 {"role":"user","content":[{"type":"text","text":"look"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},
 {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"sig1"},{"type":"text","text":"running"},
   {"type":"tool_use","id":"toolu_1","name":"bash","input":{"cmd":"ls"}},{"type":"tool_use","id":"toolu_2","name":"read","input":{"path":"a"}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a b"},
   {"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"boom"}],"is_error":true},{"type":"text","text":"and then?"}]},
 {"role":"assistant","content":[{"type":"redacted_thinking","data":"opaque"},{"type":"tool_use","id":"toolu_3","name":"glob","input":{}}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":"x"}]},
 {"role":"assistant","content":[{"type":"text","text":"done"}]},
 {"role":"user","content":"thanks"}]}`

const validChat = `{"model":"gpt-x","messages":[
 {"role":"system","content":"principal"},
 {"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
 {"role":"assistant","content":"running","tool_calls":[
   {"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}},
   {"id":"call_2","type":"function","function":{"name":"read","arguments":"{}"}}]},
 {"role":"tool","tool_call_id":"call_1","content":"a b"},
 {"role":"tool","tool_call_id":"call_2","content":[{"type":"text","text":"boom"}]},
 {"role":"user","content":"and then?"},
 {"role":"assistant","content":null,"tool_calls":[{"id":"call_3","type":"function","function":{"name":"glob","arguments":"{}"}}]},
 {"role":"tool","tool_call_id":"call_3","content":"x"},
 {"role":"assistant","content":"done"},
 {"role":"user","content":"thanks"}]}`

const validResponses = `{"model":"gpt-x","instructions":"principal","input":[
 {"type":"message","role":"user","content":[{"type":"input_text","text":"look"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]},
 {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"enc"},
 {"type":"message","role":"assistant","content":"running"},
 {"type":"function_call","call_id":"call_1","name":"bash","arguments":"{\"cmd\":\"ls\"}"},
 {"type":"function_call","call_id":"call_2","name":"read","arguments":"{}"},
 {"type":"function_call_output","call_id":"call_1","output":"a b"},
 {"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"boom"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]},
 {"type":"message","role":"user","content":"thanks"}]}`

const validGemini = `{"systemInstruction":{"parts":[{"text":"principal"}]},"contents":[
 {"role":"user","parts":[{"text":"look"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]},
 {"role":"model","parts":[{"text":"running"},{"functionCall":{"name":"bash","args":{"cmd":"ls"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"read","args":{}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"bash","response":{"output":"a b"}}},{"functionResponse":{"name":"read","response":{"error":"boom"}}}]},
 {"role":"model","parts":[{"functionCall":{"name":"glob","args":{}},"thoughtSignature":"c2ln"}]},
 {"role":"user","parts":[{"functionResponse":{"name":"glob","response":{"output":"x"}}}]},
 {"role":"model","parts":[{"text":"done"}]},
 {"role":"user","parts":[{"text":"thanks"}]}]}`

var validBodies = map[string]string{
	Anthropic: validAnthropic, OpenAIChat: validChat, OpenAIResponses: validResponses, Gemini: validGemini,
}

func visionOpts() Options { return Options{Vision: true, Model: "gemini-3-pro"} }

func TestValidBodiesAccepted(t *testing.T) {
	for _, w := range Wires {
		require.NoError(t, Validate(w, []byte(validBodies[w]), visionOpts()), w)
	}
}

// mutation seeds one defect into a valid body; the validator must name it.
type mutation struct {
	wire   string
	name   string
	opts   *Options
	mutate func(b map[string]any)
	rule   string
	msg    string // substring of the real API's message
}

// Helpers to reach into decoded bodies.
func list(b map[string]any, k string) []any           { return b[k].([]any) }
func obj(v any) map[string]any                        { return v.(map[string]any) }
func content(b map[string]any, k string, i int) []any { return obj(list(b, k)[i])["content"].([]any) }
func setList(b map[string]any, k string, v []any)     { b[k] = v }
func remove(a []any, i int) []any                     { return append(append([]any{}, a[:i]...), a[i+1:]...) }
func insert(a []any, i int, v any) []any {
	return append(append(append([]any{}, a[:i]...), v), a[i:]...)
}
func swap(a []any, i, j int) []any                        { c := append([]any{}, a...); c[i], c[j] = c[j], c[i]; return c }
func parts(b map[string]any, i int) []any                 { return obj(list(b, "contents")[i])["parts"].([]any) }
func setParts(b map[string]any, i int, p []any)           { obj(list(b, "contents")[i])["parts"] = p }
func setContent(b map[string]any, k string, i int, c any) { obj(list(b, k)[i])["content"] = c }

var mutations = []mutation{
	// Anthropic
	{wire: Anthropic, name: "unanswered tool_use", rule: "tool_use.unanswered", msg: "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_2",
		mutate: func(b map[string]any) { setContent(b, "messages", 2, remove(content(b, "messages", 2), 1)) }},
	{wire: Anthropic, name: "message between use and result", rule: "tool_use.unanswered", msg: "Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
		mutate: func(b map[string]any) {
			m := insert(list(b, "messages"), 2, map[string]any{"role": "assistant", "content": "interjection"})
			setList(b, "messages", insert(m, 2, map[string]any{"role": "user", "content": "wait"}))
		}},
	{wire: Anthropic, name: "orphan tool_result", rule: "tool_result.unexpected", msg: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
		mutate: func(b map[string]any) {
			setContent(b, "messages", 4, append(content(b, "messages", 4), map[string]any{"type": "tool_result", "tool_use_id": "toolu_9", "content": "x"}))
		}},
	{wire: Anthropic, name: "text before tool_result", rule: "tool_result.not_first", msg: "Did not find 1 tool_result block(s) at the beginning of this message.",
		mutate: func(b map[string]any) { setContent(b, "messages", 2, swap(content(b, "messages", 2), 1, 2)) }},
	{wire: Anthropic, name: "results split across a user turn", rule: "tool_result.not_first",
		mutate: func(b map[string]any) {
			m := list(b, "messages")
			setList(b, "messages", insert(m, 2, map[string]any{"role": "user", "content": "wait"}))
		}},
	{wire: Anthropic, name: "result in a later turn", rule: "tool_result.not_first",
		mutate: func(b map[string]any) {
			m := list(b, "messages")
			setList(b, "messages", append(remove(m, 4), map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_3", "content": "x"}}}))
		}},
	{wire: Anthropic, name: "duplicate tool_result", rule: "tool_result.duplicate",
		mutate: func(b map[string]any) {
			setContent(b, "messages", 4, append(content(b, "messages", 4), content(b, "messages", 4)[0]))
		}},
	{wire: Anthropic, name: "duplicate tool_use id", rule: "tool_use.unique", msg: "`tool_use` ids must be unique",
		mutate: func(b map[string]any) { obj(content(b, "messages", 3)[1])["id"] = "toolu_1" }},
	{wire: Anthropic, name: "empty user content", rule: "content.empty", msg: "all messages must have non-empty content except for the optional final assistant message",
		mutate: func(b map[string]any) { setContent(b, "messages", 6, "") }},
	{wire: Anthropic, name: "empty assistant content mid-history", rule: "content.empty",
		mutate: func(b map[string]any) { setContent(b, "messages", 5, []any{}) }},
	{wire: Anthropic, name: "empty text block", rule: "text.empty", msg: "text content blocks must be non-empty",
		mutate: func(b map[string]any) { obj(content(b, "messages", 1)[1])["text"] = "" }},
	{wire: Anthropic, name: "empty error result", rule: "tool_result.empty_error", msg: "tool_result: content cannot be empty if `is_error` is true",
		mutate: func(b map[string]any) { obj(content(b, "messages", 2)[1])["content"] = []any{} }},
	{wire: Anthropic, name: "thinking without signature", rule: "thinking.signature",
		mutate: func(b map[string]any) { delete(obj(content(b, "messages", 1)[0]), "signature") }},
	{wire: Anthropic, name: "foreign signature", rule: "thinking.signature_invalid", msg: "Invalid `signature` in `thinking` block",
		opts:   &Options{Vision: true, SignatureValid: func(s string) bool { return s == "other" }},
		mutate: func(b map[string]any) {}},
	{wire: Anthropic, name: "text before thinking", rule: "thinking.first", msg: "the first block must be thinking or redacted_thinking. Found text.",
		mutate: func(b map[string]any) { setContent(b, "messages", 1, swap(content(b, "messages", 1), 0, 1)) }},
	{wire: Anthropic, name: "thinking last", rule: "thinking.final_block", msg: "The final block in an assistant message cannot be `thinking`.",
		mutate: func(b map[string]any) {
			c := content(b, "messages", 5)
			setContent(b, "messages", 5, append([]any{map[string]any{"type": "thinking", "thinking": "t", "signature": "s"}}, append(c, map[string]any{"type": "thinking", "thinking": "t", "signature": "s"})...))
		}},
	{wire: Anthropic, name: "final assistant with thinking", rule: "thinking.final_disabled", msg: "When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`.",
		mutate: func(b map[string]any) {
			m := list(b, "messages")
			setList(b, "messages", append(m[:6:6], map[string]any{"role": "user", "content": "q"}, map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "t", "signature": "s"}, map[string]any{"type": "text", "text": "a"}}}))
		}},
	{wire: Anthropic, name: "image to blind model", rule: "image.vision", opts: &Options{}, mutate: func(b map[string]any) {}},
	{wire: Anthropic, name: "bad image media type", rule: "image.media_type",
		mutate: func(b map[string]any) { obj(obj(content(b, "messages", 0)[1])["source"])["media_type"] = "image/bmp" }},
	{wire: Anthropic, name: "tool role", rule: "role", msg: "Input should be 'user' or 'assistant'",
		mutate: func(b map[string]any) { obj(list(b, "messages")[6])["role"] = "tool" }},
	{wire: Anthropic, name: "unknown block type", rule: "block.type",
		mutate: func(b map[string]any) { obj(content(b, "messages", 5)[0])["type"] = "reasoning" }},
	{wire: Anthropic, name: "tool_use input not an object", rule: "tool_use.input", msg: "Input should be a valid dictionary",
		mutate: func(b map[string]any) { obj(content(b, "messages", 1)[2])["input"] = `{"cmd":"ls"}` }},
	{wire: Anthropic, name: "tool_use in a user turn", rule: "tool_use.role",
		mutate: func(b map[string]any) {
			setContent(b, "messages", 6, []any{map[string]any{"type": "tool_use", "id": "toolu_9", "name": "x", "input": map[string]any{}}})
		}},
	{wire: Anthropic, name: "tool_result in an assistant turn", rule: "tool_result.role",
		mutate: func(b map[string]any) {
			setContent(b, "messages", 5, append(content(b, "messages", 5), content(b, "messages", 4)[0]))
		}},
	{wire: Anthropic, name: "thinking in a user turn", rule: "thinking.role",
		mutate: func(b map[string]any) { setContent(b, "messages", 6, []any{content(b, "messages", 1)[0]}) }},
	{wire: Anthropic, name: "redacted thinking without data", rule: "redacted.data",
		mutate: func(b map[string]any) { obj(content(b, "messages", 3)[0])["data"] = "" }},
	{wire: Anthropic, name: "thinking part inside a tool_result", rule: "tool_result.content",
		mutate: func(b map[string]any) {
			obj(content(b, "messages", 4)[0])["content"] = []any{map[string]any{"type": "thinking", "thinking": "t", "signature": "s"}}
		}},

	// OpenAI Chat
	{wire: OpenAIChat, name: "missing tool message", rule: "tool_call.unanswered", msg: "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
		mutate: func(b map[string]any) { setList(b, "messages", remove(list(b, "messages"), 4)) }},
	{wire: OpenAIChat, name: "message between call and result", rule: "tool_call.unanswered",
		mutate: func(b map[string]any) {
			setList(b, "messages", insert(list(b, "messages"), 3, map[string]any{"role": "assistant", "content": "split"}))
		}},
	{wire: OpenAIChat, name: "round split into two assistants", rule: "tool_call.unanswered",
		mutate: func(b map[string]any) {
			m := list(b, "messages")
			a := obj(m[2])
			calls := a["tool_calls"].([]any)
			a["tool_calls"] = calls[:1]
			second := map[string]any{"role": "assistant", "content": nil, "tool_calls": calls[1:]}
			setList(b, "messages", insert(m, 3, second))
		}},
	{wire: OpenAIChat, name: "orphan tool message", rule: "tool.orphan", msg: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
		mutate: func(b map[string]any) {
			setList(b, "messages", insert(list(b, "messages"), 1, map[string]any{"role": "tool", "tool_call_id": "call_9", "content": "x"}))
		}},
	{wire: OpenAIChat, name: "tool message answering another id", rule: "tool.orphan",
		mutate: func(b map[string]any) { obj(list(b, "messages")[7])["tool_call_id"] = "call_1" }},
	{wire: OpenAIChat, name: "result before call", rule: "tool.orphan",
		mutate: func(b map[string]any) { setList(b, "messages", swap(list(b, "messages"), 6, 7)) }},
	{wire: OpenAIChat, name: "duplicate tool message", rule: "tool.duplicate",
		mutate: func(b map[string]any) { setList(b, "messages", insert(list(b, "messages"), 4, list(b, "messages")[3])) }},
	{wire: OpenAIChat, name: "duplicate call id", rule: "tool_call.unique",
		mutate: func(b map[string]any) {
			m := list(b, "messages")
			obj(obj(m[6])["tool_calls"].([]any)[0])["id"] = "call_1"
			obj(m[7])["tool_call_id"] = "call_1"
		}},
	{wire: OpenAIChat, name: "null content without calls", rule: "assistant.content", msg: "Invalid value for 'content': expected a string, got null.",
		mutate: func(b map[string]any) { obj(list(b, "messages")[8])["content"] = nil }},
	{wire: OpenAIChat, name: "object arguments", rule: "tool_call.arguments",
		mutate: func(b map[string]any) {
			obj(obj(obj(list(b, "messages")[2])["tool_calls"].([]any)[0])["function"])["arguments"] = map[string]any{}
		}},
	{wire: OpenAIChat, name: "image in tool message", rule: "tool.image", msg: "Image URLs are only allowed for messages with role 'user'",
		mutate: func(b map[string]any) {
			obj(list(b, "messages")[4])["content"] = []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:x"}}}
		}},
	{wire: OpenAIChat, name: "image to blind model", rule: "image.vision", msg: "Invalid content type. image_url is only supported by certain models.",
		opts: &Options{}, mutate: func(b map[string]any) {}},
	{wire: OpenAIChat, name: "bad role", rule: "role",
		mutate: func(b map[string]any) { obj(list(b, "messages")[5])["role"] = "toolResult" }},
	{wire: OpenAIChat, name: "arguments not JSON text", rule: "tool_call.arguments_json",
		mutate: func(b map[string]any) {
			obj(obj(obj(list(b, "messages")[2])["tool_calls"].([]any)[0])["function"])["arguments"] = `{"cmd":`
		}},
	{wire: OpenAIChat, name: "tool message without tool_call_id", rule: "tool.id", msg: "Missing required parameter: 'messages.[7].tool_call_id'.",
		mutate: func(b map[string]any) { delete(obj(list(b, "messages")[7]), "tool_call_id") }},

	// OpenAI Responses
	{wire: OpenAIResponses, name: "missing output", rule: "function_call.unanswered", msg: "No tool output found for function call call_2.",
		mutate: func(b map[string]any) { setList(b, "input", remove(list(b, "input"), 6)) }},
	{wire: OpenAIResponses, name: "orphan output", rule: "output.orphan", msg: "No tool call found for function call output with call_id call_9.",
		mutate: func(b map[string]any) { obj(list(b, "input")[5])["call_id"] = "call_9" }},
	{wire: OpenAIResponses, name: "output before call", rule: "output.orphan",
		mutate: func(b map[string]any) { setList(b, "input", swap(list(b, "input"), 3, 5)) }},
	{wire: OpenAIResponses, name: "duplicate output", rule: "output.duplicate",
		mutate: func(b map[string]any) { setList(b, "input", insert(list(b, "input"), 6, list(b, "input")[5])) }},
	{wire: OpenAIResponses, name: "duplicate call", rule: "function_call.unique",
		mutate: func(b map[string]any) { obj(list(b, "input")[4])["call_id"] = "call_1" }},
	{wire: OpenAIResponses, name: "reasoning without following item", rule: "reasoning.following", msg: "Item 'rs_1' of type 'reasoning' was provided without its required following item.",
		mutate: func(b map[string]any) { setList(b, "input", remove(remove(remove(list(b, "input"), 2), 2), 2)) }},
	{wire: OpenAIResponses, name: "reasoning last", rule: "reasoning.following",
		mutate: func(b map[string]any) { setList(b, "input", append(list(b, "input"), list(b, "input")[1])) }},
	{wire: OpenAIResponses, name: "reasoning without summary", rule: "reasoning.summary", msg: "missing required field `summary`",
		mutate: func(b map[string]any) { delete(obj(list(b, "input")[1]), "summary") }},
	{wire: OpenAIResponses, name: "tool role", rule: "role", msg: "Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
		mutate: func(b map[string]any) { obj(list(b, "input")[8])["role"] = "tool" }},
	{wire: OpenAIResponses, name: "foreign item id", rule: "function_call.id", msg: "Expected an ID that begins with 'fc'",
		mutate: func(b map[string]any) { obj(list(b, "input")[3])["id"] = "call_1" }},
	{wire: OpenAIResponses, name: "image to blind model", rule: "image.vision", opts: &Options{}, mutate: func(b map[string]any) {}},
	{wire: OpenAIResponses, name: "bad arguments", rule: "function_call.arguments_json",
		mutate: func(b map[string]any) { obj(list(b, "input")[3])["arguments"] = "{" }},

	// Gemini
	{wire: Gemini, name: "missing response", rule: "response.count", msg: "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		mutate: func(b map[string]any) { setParts(b, 2, parts(b, 2)[:1]) }},
	{wire: Gemini, name: "call turn last", rule: "response.count",
		mutate: func(b map[string]any) { setList(b, "contents", list(b, "contents")[:4]) }},
	{wire: Gemini, name: "call turn first", rule: "call.position", msg: "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
		mutate: func(b map[string]any) { setList(b, "contents", list(b, "contents")[1:]) }},
	{wire: Gemini, name: "call after model text", rule: "call.position",
		mutate: func(b map[string]any) {
			setList(b, "contents", insert(list(b, "contents"), 3, map[string]any{"role": "model", "parts": []any{map[string]any{"text": "hm"}}}))
		}},
	{wire: Gemini, name: "orphan response", rule: "response.position", msg: "Please ensure that function response turn comes immediately after a function call turn.",
		mutate: func(b map[string]any) {
			setList(b, "contents", insert(list(b, "contents"), 1, list(b, "contents")[4]))
		}},
	{wire: Gemini, name: "response names", rule: "response.names",
		mutate: func(b map[string]any) { obj(obj(parts(b, 4)[0])["functionResponse"])["name"] = "bash" }},
	{wire: Gemini, name: "empty parts", rule: "parts.empty", msg: "contents.parts must not be empty",
		mutate: func(b map[string]any) { setParts(b, 5, []any{}) }},
	{wire: Gemini, name: "unsigned call on gemini-3", rule: "thought_signature", msg: "Function call is missing a thought_signature in functionCall parts.",
		mutate: func(b map[string]any) {
			delete(obj(parts(b, 3)[0]), "thoughtSignature")
			setList(b, "contents", list(b, "contents")[:5])
		}},
	{wire: Gemini, name: "bad role", rule: "role", msg: "Please use a valid role: user, model.",
		mutate: func(b map[string]any) { obj(list(b, "contents")[6])["role"] = "assistant" }},
	{wire: Gemini, name: "image to blind model", rule: "image.vision", opts: &Options{Model: "gemini-3-pro"}, mutate: func(b map[string]any) {}},
	{wire: Gemini, name: "functionCall in a user turn", rule: "functionCall.role",
		mutate: func(b map[string]any) { setParts(b, 6, []any{parts(b, 3)[0]}) }},
	{wire: Gemini, name: "functionResponse in a model turn", rule: "functionResponse.role",
		mutate: func(b map[string]any) { setParts(b, 5, []any{parts(b, 4)[0]}) }},
	{wire: Gemini, name: "functionResponse without response", rule: "functionResponse.response",
		mutate: func(b map[string]any) { delete(obj(obj(parts(b, 4)[0])["functionResponse"]), "response") }},
}

func TestMutationsRejected(t *testing.T) {
	for _, m := range mutations {
		t.Run(m.wire+"/"+m.name, func(t *testing.T) {
			var b map[string]any
			require.NoError(t, json.Unmarshal([]byte(validBodies[m.wire]), &b))
			m.mutate(b)
			body, err := json.Marshal(b)
			require.NoError(t, err)
			opts := visionOpts()
			if m.opts != nil {
				opts = *m.opts
			}
			err = Validate(m.wire, body, opts)
			require.Error(t, err, "mutation was accepted")
			var we *Error
			require.True(t, errors.As(err, &we))
			require.Equal(t, m.rule, we.Rule, "wrong rule fired: %s", we.Message)
			require.Contains(t, we.Message, m.msg)
		})
	}
}

// schemaOnly are rules that check the JSON shape of a single field (a
// missing key, a wrong JSON type); they are listed here instead of having a
// mutation each. Every rule about a history (ordering, pairing, answering,
// roles, thinking, vision) must have a mutation.
var schemaOnly = map[string][]string{
	Anthropic: {"content.type", "image.source", "message.type", "messages.required", "thinking.text",
		"tool_result.fields", "tool_use.fields"},
	OpenAIChat: {"content.type", "image.url", "message.type", "messages.required", "part.type", "text.type",
		"tool_call.fields", "tool_calls.type"},
	OpenAIResponses: {"content.type", "function_call.arguments", "function_call.fields", "image.url", "input.type",
		"item.kind", "item.type", "output.type", "part.type", "text.type"},
	Gemini: {"content.type", "contents.required", "functionCall.name", "functionResponse.name", "inlineData.fields",
		"part.data", "part.type"},
}

// Every rule a validator can report (read from its source) is exercised by
// a mutation, or is a single-field schema rule listed in schemaOnly.
func TestEveryRuleHasAMutation(t *testing.T) {
	files := map[string]string{Anthropic: "anthropic.go", OpenAIChat: "openai_chat.go",
		OpenAIResponses: "openai_responses.go", Gemini: "gemini.go"}
	ruleRE := regexp.MustCompile(`(?:reject|strict)\(w, "([^"]+)"`)
	tested := map[string]bool{}
	for _, m := range mutations {
		tested[m.wire+"/"+m.rule] = true
	}
	for _, w := range Wires {
		src, err := os.ReadFile(files[w])
		require.NoError(t, err)
		rules := ruleRE.FindAllStringSubmatch(string(src), -1)
		require.NotEmpty(t, rules, w)
		for _, r := range rules {
			if !tested[w+"/"+r[1]] && !slices.Contains(schemaOnly[w], r[1]) {
				t.Errorf("%s rule %q has no mutation in wire_test.go", w, r[1])
			}
		}
	}
}

func TestGeminiOldModelsNeedNoSignature(t *testing.T) {
	var b map[string]any
	require.NoError(t, json.Unmarshal([]byte(validGemini), &b))
	delete(obj(parts(b, 3)[0]), "thoughtSignature")
	setList(b, "contents", list(b, "contents")[:5]) // the unsigned step is in the current turn
	body, _ := json.Marshal(b)
	require.NoError(t, Validate(Gemini, body, Options{Vision: true, Model: "gemini-2.5-flash"}))
	require.Error(t, Validate(Gemini, body, Options{Vision: true, Model: "gemini-3-flash"}))
}

func TestBadJSONAndUnknownWire(t *testing.T) {
	require.Error(t, Validate(Anthropic, []byte("{"), Options{}))
	require.Error(t, Validate(Anthropic, []byte("[]"), Options{}))
	require.Error(t, Validate("bedrock", []byte("{}"), Options{}))
}
