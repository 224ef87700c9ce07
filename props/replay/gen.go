package replay

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	"pgregory.net/rapid"
)

// ThinkMark starts every generated thinking text, so a property can find
// reasoning that leaked into visible content.
const ThinkMark = "THINK-"

var (
	toolNames = []string{"bash", "read", "grep", "glob", "edit", "web", "ask"}
	mimes     = []string{"image/png", "image/jpeg", "image/webp", "image/bmp"}
	stops     = []pi.StopReason{pi.StopStop, pi.StopToolUse, pi.StopLength, pi.StopError, pi.StopAborted, pi.StopPending, pi.StopDeferred}
)

// APIOf is the pi api name whose signatures a wire accepts (from the
// registry in impl/pi); an unknown wire is an error, never a default.
func APIOf(wire string) (string, error) {
	w, err := pi.WireByName(wire)
	if err != nil {
		return "", fmt.Errorf("props/replay: %w", err)
	}
	return w.API, nil
}

// TargetGen draws a target: any wire, vision or not, and for Gemini either
// a Gemini 3 model (strict signatures) or an older one.
func TargetGen() *rapid.Generator[impl.Target] {
	return rapid.Custom(func(t *rapid.T) impl.Target {
		w := rapid.SampledFrom(impl.Wires).Draw(t, "wire")
		model := "model-a"
		if w == impl.WireGemini {
			model = rapid.SampledFrom([]string{"gemini-3-pro", "gemini-2.5-flash"}).Draw(t, "gemini")
		}
		return impl.Target{Wire: w, Provider: "prov", Model: model, Vision: rapid.Bool().Draw(t, "vision")}
	})
}

// PrincipalGen draws an optional runtime principal.
func PrincipalGen() *rapid.Generator[*impl.Principal] {
	return rapid.Custom(func(t *rapid.T) *impl.Principal {
		if !rapid.Bool().Draw(t, "principal") {
			return nil
		}
		p := impl.Principal{Agent: rapid.SampledFrom([]string{"ani", "aster", "kitty"}).Draw(t, "agent"),
			Borrowed: rapid.Bool().Draw(t, "borrowed"), UID: rapid.IntRange(0, 65535).Draw(t, "uid"),
			Account:         rapid.SampledFrom([]string{"annie", "casey"}).Draw(t, "account"),
			ExpectedAccount: rapid.SampledFrom([]string{"annie", "casey"}).Draw(t, "expected"), Node: "node-1"}
		return &p
	})
}

// transcriptGen builds transcripts for one target: rounds of user messages,
// assistant responses (some cut by a crash: error/aborted/pending with
// partial calls), results in order, out of order, duplicated, orphaned,
// separated from their calls, stored before their calls.
type transcriptGen struct {
	t      *rapid.T
	target impl.Target
	nextID int
	think  int
	calls  []string // ids minted so far
}

// TranscriptGen draws a transcript of up to maxRounds rounds for target.
func TranscriptGen(target impl.Target, maxRounds int) *rapid.Generator[[]pi.Appender] {
	return rapid.Custom(func(t *rapid.T) []pi.Appender {
		g := &transcriptGen{t: t, target: target}
		var msgs []pi.Appender
		rounds := rapid.IntRange(0, maxRounds).Draw(t, "rounds")
		for r := 0; r < rounds; r++ {
			msgs = append(msgs, g.round()...)
		}
		// Crash and repair damage: move some results to other positions.
		moves := rapid.IntRange(0, 3).Draw(t, "moves")
		for k := 0; k < moves && len(msgs) > 1; k++ {
			from := rapid.IntRange(0, len(msgs)-1).Draw(t, "from")
			if _, ok := msgs[from].(*pi.ToolResultMessage); !ok {
				continue
			}
			m := msgs[from]
			msgs = append(msgs[:from:from], msgs[from+1:]...)
			to := rapid.IntRange(0, len(msgs)).Draw(t, "to")
			msgs = append(msgs[:to:to], append([]pi.Appender{m}, msgs[to:]...)...)
		}
		return msgs
	})
}

func (g *transcriptGen) round() []pi.Appender {
	t := g.t
	var out []pi.Appender
	if rapid.IntRange(0, 3).Draw(t, "user?") > 0 {
		out = append(out, g.user())
	}
	a, calls := g.assistant()
	out = append(out, a)
	var results []pi.Appender
	for _, c := range calls {
		switch rapid.IntRange(0, 5).Draw(t, "answer") {
		case 0: // unanswered
		case 1: // answered twice
			results = append(results, g.result(c), g.result(c))
		default:
			results = append(results, g.result(c))
		}
	}
	if rapid.IntRange(0, 5).Draw(t, "orphan?") == 0 { // a result whose call is gone
		results = append(results, g.result(pi.ToolCall{ID: fmt.Sprintf("gone_%d", g.mint()), Name: rapid.SampledFrom(toolNames).Draw(t, "gone")}))
	}
	// results in a random order, sometimes separated by a user message
	for i := len(results) - 1; i > 0; i-- {
		j := rapid.IntRange(0, i).Draw(t, "shuffle")
		results[i], results[j] = results[j], results[i]
	}
	for _, r := range results {
		if rapid.IntRange(0, 7).Draw(t, "interject?") == 0 {
			out = append(out, g.user())
		}
		out = append(out, r)
	}
	return out
}

func (g *transcriptGen) mint() int { g.nextID++; return g.nextID }

func (g *transcriptGen) user() *pi.UserMessage {
	t := g.t
	if rapid.Bool().Draw(t, "plain") {
		return User(rapid.SampledFrom([]string{"hi", "", "go on", "ünïcode ✓ 😀"}).Draw(t, "utext"))
	}
	var blocks []pi.Content
	for n := rapid.IntRange(0, 3).Draw(t, "ublocks"); n > 0; n-- {
		if rapid.Bool().Draw(t, "uimg") {
			blocks = append(blocks, g.image())
		} else {
			blocks = append(blocks, Text(rapid.SampledFrom([]string{"look", "", "x"}).Draw(t, "ubt")))
		}
	}
	return UserBlocks(blocks...)
}

func (g *transcriptGen) image() pi.ImageContent {
	return Image(rapid.SampledFrom(mimes).Draw(g.t, "mime"), "iVBORw0K")
}

// signature draws a thinking signature of a kind some wire accepts, or not.
func (g *transcriptGen) signature() string {
	g.think++
	return rapid.SampledFrom([]string{
		"",
		"c2lnbmF0dXJl",
		fmt.Sprintf(`{"type":"reasoning","id":"rs_%d","summary":[],"encrypted_content":"enc"}`, g.think),
		"not base64!",
	}).Draw(g.t, "sig")
}

func (g *transcriptGen) assistant() (*pi.AssistantMessage, []pi.ToolCall) {
	t := g.t
	api, err := APIOf(g.target.Wire)
	if err != nil {
		t.Fatal(err)
	}
	prov, model := g.target.Provider, g.target.Model
	if rapid.IntRange(0, 3).Draw(t, "foreign?") == 0 {
		api, prov, model = pi.APIOpenAICompletions, "other", "other-model"
	}
	stop := pi.StopStop
	if rapid.IntRange(0, 3).Draw(t, "crashed?") == 0 {
		stop = rapid.SampledFrom(stops).Draw(t, "stop")
	}
	var blocks []pi.Content
	var calls []pi.ToolCall
	for n := rapid.IntRange(0, 5).Draw(t, "ablocks"); n > 0; n-- {
		switch rapid.IntRange(0, 4).Draw(t, "akind") {
		case 0:
			g.think++
			if rapid.IntRange(0, 4).Draw(t, "redacted?") == 0 {
				blocks = append(blocks, Redacted("cmVkYWN0ZWQ="))
			} else {
				blocks = append(blocks, Thinking(fmt.Sprintf("%s%d", ThinkMark, g.think), g.signature()))
			}
		case 1:
			blocks = append(blocks, Text(rapid.SampledFrom([]string{"ok", "", "running"}).Draw(t, "atext")))
		default:
			id := fmt.Sprintf("call_%d", g.mint())
			if len(g.calls) > 0 && rapid.IntRange(0, 15).Draw(t, "reuse?") == 0 {
				id = rapid.SampledFrom(g.calls).Draw(t, "reused")
			}
			g.calls = append(g.calls, id)
			c := Call(id, rapid.SampledFrom(toolNames).Draw(t, "tool"), "arg", "v")
			if rapid.Bool().Draw(t, "csig?") {
				c.ThoughtSignature = pi.Str(rapid.SampledFrom([]string{"c2ln", "bad sig"}).Draw(t, "csig"))
			}
			if rapid.IntRange(0, 10).Draw(t, "oddargs?") == 0 {
				c.Arguments = pi.JSONValue{} // a partial call with no arguments yet
			}
			blocks = append(blocks, c)
			calls = append(calls, c)
		}
	}
	return AsstFrom(api, prov, model, stop, blocks...), calls
}

func (g *transcriptGen) result(c pi.ToolCall) *pi.ToolResultMessage {
	t := g.t
	var blocks []pi.Content
	for n := rapid.IntRange(0, 2).Draw(t, "rblocks"); n > 0; n-- {
		if rapid.IntRange(0, 3).Draw(t, "rimg?") == 0 {
			blocks = append(blocks, g.image())
		} else {
			blocks = append(blocks, Text(rapid.SampledFrom([]string{"out", "", "line1\nline2"}).Draw(t, "rtext")))
		}
	}
	return ResultBlocks(c.ID, c.Name, rapid.IntRange(0, 3).Draw(t, "err?") == 0, blocks...)
}
