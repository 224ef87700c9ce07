package provider

import (
	"fmt"
	"strings"

	impl "github.com/frameproof/frameproof/impl/provider"
	"pgregory.net/rapid"
)

// alphabet mixes ASCII, JSON escapes, multi-byte and astral characters, line
// separators and "\n\n" (a reasoning-summary separator on Responses), so
// chunk boundaries land inside UTF-8 sequences and JSON escapes.
var alphabet = []rune("aZ 0.,:{}[]\"\\/\n\t\r<&\u00e9\u4e2d\u2028\U0001F600\U0001D11E\x01")

func genText(t *rapid.T, label string, minLen int) string {
	return rapid.StringOfN(rapid.SampledFrom(alphabet), minLen, 24, -1).Draw(t, label)
}

func genPieces(t *rapid.T, label string) []int {
	return rapid.SliceOfN(rapid.IntRange(1, 6), 0, 5).Draw(t, label)
}

// genJSON draws a JSON value; objects use integer-like and ordinary keys so
// JS property order (integer keys first) differs from insertion order.
func genJSON(t *rapid.T, label string, depth int) any {
	kinds := 7
	if depth <= 0 {
		kinds = 5
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, label+".kind") {
	case 0:
		return genText(t, label+".s", 0)
	case 1:
		return float64(rapid.IntRange(-1000, 100000).Draw(t, label+".n"))
	case 2:
		return rapid.Bool().Draw(t, label+".b")
	case 3:
		return nil
	case 4:
		return float64(rapid.IntRange(-50, 50).Draw(t, label+".f")) / 4
	case 5:
		n := rapid.IntRange(0, 3).Draw(t, label+".len")
		out := make([]any, n)
		for i := range out {
			out[i] = genJSON(t, fmt.Sprintf("%s[%d]", label, i), depth-1)
		}
		return out
	default:
		return genObject(t, label, depth-1)
	}
}

func genObject(t *rapid.T, label string, depth int) map[string]any {
	keys := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"path", "q", "10", "2", "a b", "\u00e9", "nested", "x\"y", "limit"}), 0, 4, rapid.ID[string]).Draw(t, label+".keys")
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		out[k] = genJSON(t, label+"."+k, depth)
	}
	return out
}

// kindsFor lists the block kinds a wire can carry.
func kindsFor(wire impl.Wire) []string {
	switch wire {
	case impl.WireAnthropic:
		return []string{KText, KThinking, KRedacted, KToolCall}
	default:
		return []string{KText, KThinking, KToolCall}
	}
}

// GenTruth draws a truth that wire can carry. Wire limits: Chat Completions
// has one reasoning stream, one content stream and then tool calls, all
// non-empty; Gemini merges adjacent parts of one kind, so no two adjacent
// text (or thinking) blocks and no empty ones; only Anthropic has redacted
// thinking. On Anthropic and OpenAI a third of the text and thinking blocks
// count their delta pieces in UTF-16 units, so deltas can split surrogate
// pairs (TBlock.UTF16Pieces; Gemini's wire cannot carry lone surrogates).
func GenTruth(t *rapid.T, wire impl.Wire) Truth {
	tr := Truth{
		ResponseID: rapid.SampledFrom([]string{"resp_1", "msg_01XyZ", "chatcmpl-9", "r-\u00e9"}).Draw(t, "responseId"),
		Model:      "fuzz-model",
		Length:     rapid.IntRange(0, 5).Draw(t, "length") == 0,
	}
	var kinds []string
	if wire == impl.WireOpenAIChat {
		if rapid.Bool().Draw(t, "chat.thinking") {
			kinds = append(kinds, KThinking)
		}
		if rapid.Bool().Draw(t, "chat.text") {
			kinds = append(kinds, KText)
		}
		for range rapid.IntRange(0, 3).Draw(t, "chat.tools") {
			kinds = append(kinds, KToolCall)
		}
	} else {
		kinds = rapid.SliceOfN(rapid.SampledFrom(kindsFor(wire)), 0, 5).Draw(t, "kinds")
	}
	minLen := 0
	if wire == impl.WireOpenAIChat || wire == impl.WireGemini {
		minLen = 1
	}
	for i, k := range kinds {
		if wire == impl.WireGemini && i > 0 && k != KToolCall && tr.Blocks[len(tr.Blocks)-1].Kind == k {
			continue // adjacent parts of one kind are one block on Gemini
		}
		label := fmt.Sprintf("block[%d]", i)
		b := TBlock{Kind: k, Pieces: genPieces(t, label+".pieces")}
		if wire != impl.WireGemini && (k == KText || k == KThinking) {
			b.UTF16Pieces = rapid.IntRange(0, 2).Draw(t, label+".utf16") == 0
		}
		switch k {
		case KText:
			b.Text = genText(t, label+".text", minLen)
			if wire == impl.WireGemini && rapid.Bool().Draw(t, label+".sig") {
				b.Signature = genSignature(t, label+".signature")
			}
		case KThinking:
			b.Text = genText(t, label+".thinking", minLen)
			if wire != impl.WireOpenAIChat && rapid.IntRange(0, 3).Draw(t, label+".hasSig") > 0 {
				b.Signature = genSignature(t, label+".signature")
			}
		case KRedacted:
			b.Signature = genSignature(t, label+".data")
			b.Pieces = nil
		case KToolCall:
			b.ToolID = fmt.Sprintf("call_%d%s", i, rapid.SampledFrom([]string{"", "x", "_\u00e9"}).Draw(t, label+".id"))
			if wire == impl.WireGemini && rapid.Bool().Draw(t, label+".noId") {
				b.ToolID = "" // Gemini's id is optional
			}
			b.Name = rapid.SampledFrom([]string{"read", "bash", "web_search", "t"}).Draw(t, label+".name")
			b.ArgsJSON = mustJSON(genObject(t, label+".args", 2))
			if wire == impl.WireGemini && rapid.Bool().Draw(t, label+".sig") {
				b.Signature = genSignature(t, label+".signature")
			}
		}
		tr.Blocks = append(tr.Blocks, b)
	}
	tr.Usage = TUsage{
		Input:     rapid.IntRange(0, 5000).Draw(t, "usage.input"),
		Output:    rapid.IntRange(0, 3000).Draw(t, "usage.output"),
		CacheRead: rapid.IntRange(0, 2000).Draw(t, "usage.cacheRead"),
	}
	if wire == impl.WireAnthropic {
		tr.Usage.CacheWrite = rapid.IntRange(0, 500).Draw(t, "usage.cacheWrite")
	} else {
		tr.Usage.Reasoning = rapid.IntRange(0, tr.Usage.Output).Draw(t, "usage.reasoning")
	}
	return tr
}

func genSignature(t *rapid.T, label string) string {
	n := rapid.IntRange(1, 6).Draw(t, label+".len")
	return strings.Repeat("QUJD", n) + rapid.SampledFrom([]string{"", "ZA==", "ZGU="}).Draw(t, label+".tail")
}

// GenTransport draws transport faults, and with probability about one in
// four a failure.
func GenTransport(t *rapid.T, wire impl.Wire) Transport {
	tp := Transport{
		Cuts:        rapid.SliceOfN(rapid.IntRange(0, 1000), 0, 12).Draw(t, "cuts"),
		Pings:       rapid.SliceOfN(rapid.IntRange(0, 40), 0, 3).Draw(t, "pings"),
		CRLF:        rapid.IntRange(0, 3).Draw(t, "crlf") == 0,
		Interleave:  rapid.Bool().Draw(t, "interleave"),
		ArgsAtStart: rapid.IntRange(0, 3).Draw(t, "argsAtStart") == 0,
	}
	if tp.Interleave {
		tp.Order = rapid.SliceOfN(rapid.IntRange(0, 3), 0, 16).Draw(t, "order")
	}
	switch rapid.IntRange(0, 15).Draw(t, "failure") {
	case 0, 1:
		tp.Failure = FailDisconnect
		tp.FailAt = rapid.IntRange(0, 999).Draw(t, "failAt")
	case 2:
		tp.Failure = FailErrorEvent
		tp.FailAt = rapid.IntRange(0, 30).Draw(t, "failAt")
	case 3:
		tp.Failure = FailErrorStop
	case 4:
		tp.Failure = FailHTTP
		tp.Status = rapid.SampledFrom([]int{400, 401, 403, 404, 429, 500, 503}).Draw(t, "status")
	}
	return tp
}

// GenScenario draws a whole scenario for wire.
func GenScenario(wire impl.Wire) *rapid.Generator[Scenario] {
	return rapid.Custom(func(t *rapid.T) Scenario {
		return Scenario{Wire: string(wire), Truth: GenTruth(t, wire), Transport: GenTransport(t, wire)}
	})
}
