package replay

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// handledKinds are the content kinds every switch in this package matches.
var handledKinds = []pi.Content{pi.TextContent{}, pi.ThinkingContent{}, pi.ToolCall{}, pi.ImageContent{}}

// TestEveryContentKindIsHandled fails when impl/pi grows a content kind
// (a type with a ContentType method) that this package does not list, so a
// new kind cannot slip past the projection's switches.
func TestEveryContentKindIsHandled(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("../pi/*.go")
	require.NoError(t, err)
	var declared []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "ContentType" {
				continue
			}
			switch r := fn.Recv.List[0].Type.(type) {
			case *ast.Ident:
				declared = append(declared, r.Name)
			case *ast.StarExpr:
				declared = append(declared, r.X.(*ast.Ident).Name)
			}
		}
	}
	var handled []string
	for _, k := range handledKinds {
		handled = append(handled, strings.TrimPrefix(strings.TrimPrefix(typeName(k), "pi."), "*"))
	}
	sort.Strings(declared)
	sort.Strings(handled)
	require.Equal(t, handled, declared, "impl/pi content kinds changed: classify the new kind in plan.go and list it here")
}

func typeName(c pi.Content) string {
	switch c.(type) {
	case pi.TextContent:
		return "TextContent"
	case pi.ThinkingContent:
		return "ThinkingContent"
	case pi.ToolCall:
		return "ToolCall"
	case pi.ImageContent:
		return "ImageContent"
	}
	return "unknown"
}

// strangeKind stands for a kind added to pi later.
type strangeKind struct{}

func (strangeKind) ContentType() string          { return "strange" }
func (strangeKind) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"strange"}`...) }

func asst(stop pi.StopReason, blocks ...pi.Content) *pi.AssistantMessage {
	return &pi.AssistantMessage{Content: blocks, API: "anthropic-messages", Provider: "p", Model: "m", StopReason: stop}
}

func TestUnknownKindsFailLoudly(t *testing.T) {
	tg := Target{Wire: WireAnthropic, Provider: "p", Model: "m"}
	for _, msgs := range [][]pi.Appender{
		{asst(pi.StopStop, strangeKind{})},
		{&pi.UserMessage{Blocks: []pi.Content{strangeKind{}}}},
		{&pi.ToolResultMessage{ToolCallID: "x", ToolName: "t", Content: []pi.Content{strangeKind{}}}},
		{&pi.UserMessage{Blocks: []pi.Content{pi.ToolCall{ID: "c"}}}},
	} {
		_, err := Project(msgs, tg, Options{})
		require.Error(t, err)
		require.Contains(t, err.Error(), "message 0: block 0")
	}
	_, err := Project([]pi.Appender{asst("finished", pi.TextContent{Text: "x"})}, tg, Options{})
	require.ErrorContains(t, err, `unknown stopReason "finished"`)
	_, err = Project([]pi.Appender{pi.TextContent{Text: "x"}}, tg, Options{})
	require.ErrorContains(t, err, "unsupported message type")
	_, err = Project(nil, Target{Wire: "bedrock"}, Options{})
	require.ErrorContains(t, err, `unknown wire "bedrock"`)
	_, err = Project([]pi.Appender{asst(pi.StopError, pi.TextContent{Text: "x"})}, tg, Options{})
	require.ErrorIs(t, err, ErrNothingToSend)
}

func TestEveryKnownKindProjects(t *testing.T) {
	for _, w := range Wires {
		tg := Target{Wire: w, Provider: "p", Model: "m", Vision: true}
		msgs := []pi.Appender{
			&pi.UserMessage{Blocks: []pi.Content{pi.TextContent{Text: "a"}, pi.ImageContent{MimeType: "image/png", Data: "QQ=="}}},
			asst(pi.StopToolUse, pi.ThinkingContent{Thinking: "t"}, pi.TextContent{Text: "b"}, pi.ToolCall{ID: "c1", Name: "bash", Arguments: pi.EmptyObject()}),
			&pi.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []pi.Content{pi.TextContent{Text: "o"}, pi.ImageContent{MimeType: "image/png", Data: "QQ=="}}},
		}
		_, err := Project(msgs, tg, Options{})
		require.NoError(t, err, w)
	}
}

func TestPrincipalRender(t *testing.T) {
	ani := Principal{Agent: "ani", UID: 1001, Account: "annie", ExpectedAccount: "annie", Node: "n1"}
	aster := ani
	aster.Agent = "aster"
	require.Contains(t, ani.Render(), "mode: dedicated resident")
	require.Contains(t, ani.Render(), "drift: none")
	require.NotContains(t, ani.Render(), "borrowing")
	// Ani and Aster receive the same account fact.
	require.Equal(t, strings.Split(ani.Render(), "\n")[3:], strings.Split(aster.Render(), "\n")[3:])

	kitty := Principal{Agent: "kitty", Borrowed: true, UID: 1000, Account: "casey", ExpectedAccount: "casey", Node: "n1"}
	require.Contains(t, kitty.Render(), "mode: borrowed user (intentional)")
	require.Contains(t, kitty.Render(), "warning: you are borrowing casey's Unix authority")

	drifted := ani
	drifted.Account, drifted.UID = "casey", 1000
	require.Contains(t, drifted.Render(), "drift: running as casey, not annie")
}

// The principal is an argument of each request: it changes only the system
// slot, is never written into the record and is not touched by microcompact.
func TestPrincipalIsNeverStored(t *testing.T) {
	msgs := []pi.Appender{&pi.UserMessage{Text: "hi"}}
	before := string(msgs[0].AppendJSON(nil))
	a := Principal{Agent: "ani", UID: 1, Account: "annie", ExpectedAccount: "annie", Node: "n"}
	b := a
	b.Borrowed = true
	for _, w := range Wires {
		tg := Target{Wire: w, Model: "m"}
		pa, err := Project(msgs, tg, Options{Principal: &a})
		require.NoError(t, err)
		pb, err := Project(msgs, tg, Options{Principal: &b})
		require.NoError(t, err)
		none, err := Project(msgs, tg, Options{})
		require.NoError(t, err)
		require.NotEqual(t, string(pa), string(pb), w)
		require.Contains(t, string(pb), "borrowing annie")
		require.NotContains(t, string(none), "Runtime principal", w)
	}
	require.Equal(t, before, string(msgs[0].AppendJSON(nil)))
}

func TestMicrocompactBoundary(t *testing.T) {
	var msgs []pi.Appender
	for i := 0; i < 7; i++ {
		id := string(rune('a' + i))
		msgs = append(msgs, asst(pi.StopToolUse, pi.ToolCall{ID: id, Name: "bash", Arguments: pi.EmptyObject()}),
			&pi.ToolResultMessage{ToolCallID: id, ToolName: "bash", Content: []pi.Content{pi.TextContent{Text: "out-" + id}}, IsError: i == 0})
	}
	out, n, err := Microcompact(msgs, DefaultMicrocompact())
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Equal(t, ClearedResult, out[1].(*pi.ToolResultMessage).Content[0].(pi.TextContent).Text)
	require.True(t, out[1].(*pi.ToolResultMessage).IsError, "isError is kept")
	require.Equal(t, ClearedResult, out[3].(*pi.ToolResultMessage).Content[0].(pi.TextContent).Text)
	require.Equal(t, "out-c", out[5].(*pi.ToolResultMessage).Content[0].(pi.TextContent).Text)
	require.Equal(t, "out-a", msgs[1].(*pi.ToolResultMessage).Content[0].(pi.TextContent).Text, "input untouched")
	_, n, _ = Microcompact(out, DefaultMicrocompact())
	require.Zero(t, n, "idempotent")
	_, _, err = Microcompact(msgs, MicrocompactOptions{KeepRecent: -1})
	require.Error(t, err)
}

func TestDecodeTranscriptNamesWhere(t *testing.T) {
	_, err := DecodeTranscript("{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}\n{\"role\":\"robot\"}\n")
	require.ErrorContains(t, err, "line 2")
	_, err = DecodeTranscript("[{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}, 5]")
	require.ErrorContains(t, err, "index 1")
	_, err = DecodeTranscript("{\"role\":\"user\",\n")
	require.ErrorContains(t, err, "line 1")
	msgs, err := DecodeTranscript("\n{\"role\":\"user\",\"content\":\"a\",\"timestamp\":1}\n\n")
	require.NoError(t, err)
	require.Len(t, msgs, 1)
}

// A bad block in a bound result is named by the result's own message index,
// not by the call's.
func TestBoundResultErrorNamesItsMessage(t *testing.T) {
	msgs := []pi.Appender{
		&pi.UserMessage{Text: "q"},
		asst(pi.StopToolUse, pi.ToolCall{ID: "c1", Name: "bash", Arguments: pi.EmptyObject()}),
		&pi.UserMessage{Text: "between"},
		&pi.ToolResultMessage{ToolCallID: "c1", ToolName: "bash", Content: []pi.Content{pi.TextContent{Text: "ok"}, pi.ToolCall{ID: "x"}}},
	}
	_, err := Project(msgs, Target{Wire: WireAnthropic, Provider: "p", Model: "m"}, Options{})
	require.ErrorContains(t, err, "message 3: block 1: toolCall block in user or tool content")
}

// microcompactReference is Microcompact as its doc states it, by list
// scans: the ids in first-call order, all but the keep last cleared.
func microcompactReference(msgs []pi.Appender, keep int, tools []string) []string {
	var ids []string
	for _, m := range msgs {
		if a, ok := m.(*pi.AssistantMessage); ok {
			for _, c := range a.Content {
				if tc, ok := c.(pi.ToolCall); ok && slices.Contains(tools, tc.Name) && !slices.Contains(ids, tc.ID) {
					ids = append(ids, tc.ID)
				}
			}
		}
	}
	var texts []string
	for _, m := range msgs {
		if r, ok := m.(*pi.ToolResultMessage); ok {
			text := r.Content[0].(pi.TextContent).Text
			if len(ids) > keep && slices.Contains(ids[:len(ids)-keep], r.ToolCallID) {
				text = ClearedResult
			}
			texts = append(texts, text)
		}
	}
	return texts
}

// Microcompact clears what the reference clears on random records whose
// calls repeat ids, name tools outside the set and have results before,
// after or without their call, for every keep from 0 past the id count
// and for tool sets on both sides of toolSet's list/map switch.
func TestMicrocompactAgreesWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	names := []string{"bash", "read", "grep", "web", "edit"}
	long := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "bash", "read"}
	for range 3000 {
		var msgs []pi.Appender
		for range rng.Intn(12) {
			id := string(rune('a' + rng.Intn(8)))
			if rng.Intn(2) == 0 {
				call := pi.ToolCall{ID: id, Name: names[rng.Intn(len(names))], Arguments: pi.EmptyObject()}
				msgs = append(msgs, asst(pi.StopToolUse, call))
			} else {
				msgs = append(msgs, &pi.ToolResultMessage{ToolCallID: id, ToolName: "bash", Content: []pi.Content{pi.TextContent{Text: "out-" + id}}})
			}
		}
		for _, tools := range [][]string{{"bash", "read"}, long} {
			for keep := 0; keep <= 9; keep++ {
				out, n, err := Microcompact(msgs, MicrocompactOptions{KeepRecent: keep, Tools: tools})
				require.NoError(t, err)
				want := microcompactReference(msgs, keep, tools)
				var got []string
				cleared := 0
				for _, m := range out {
					if r, ok := m.(*pi.ToolResultMessage); ok {
						got = append(got, r.Content[0].(pi.TextContent).Text)
						if got[len(got)-1] == ClearedResult {
							cleared++
						}
					}
				}
				require.Equal(t, want, got, "keep %d tools %v", keep, tools)
				require.Equal(t, cleared, n)
			}
		}
	}
}
