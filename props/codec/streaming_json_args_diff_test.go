package codec

import (
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// argStringPieces are string-literal contents as a model writes them: JSON
// escapes of every kind (surrogate pairs and lone halves as \u escapes,
// "\/"), raw astral and accented text, and bytes that need repair (a raw
// newline, a backslash before a letter JSON does not escape).
var argStringPieces = []string{
	"a", "path/to", " ", `\n`, `\"`, `\\`, `\/`, `\t`, `\b`, `\u00e9`, `\u20AC`, `\ud83d\ude00`, `\ud83d`, `\ude00`,
	"é", "😀", "\xed\xa0\xbd", "\n", `\q`, `\u12`, "e", "E", "-", "1", "{", "]", ",", ":",
}

// argNumbers are numbers whose prefixes are not numbers, or are others.
var argNumbers = []string{"0", "-0", "7", "-12.5", "1e3", "1E+21", "-2.5e-7", "0.000001", "123456789012345678901", "3.14159"}

// genArgsValue draws a tool-call argument value.
func genArgsValue(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 5).Draw(t, "argKind")
	if depth >= 3 && kind >= 4 {
		kind = 0
	}
	switch kind {
	case 0, 1:
		parts := rapid.SliceOfN(rapid.SampledFrom(argStringPieces), 0, 6).Draw(t, "argStr")
		return `"` + strings.Join(parts, "") + `"`
	case 2:
		return rapid.SampledFrom(argNumbers).Draw(t, "argNum")
	case 3:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "argLit")
	case 4:
		return genArgsContainer(t, depth, "[", "]", func() string { return genArgsValue(t, depth+1) })
	default:
		return genArgsObject(t, depth)
	}
}

func genArgsObject(t *rapid.T, depth int) string {
	return genArgsContainer(t, depth, "{", "}", func() string {
		key := rapid.SampledFrom([]string{"path", "command", "0", "12", "a b", "é", "__proto__", `k\"q`, "timeout"}).Draw(t, "argKey")
		return `"` + key + `"` + rapid.SampledFrom([]string{":", ": ", " : "}).Draw(t, "argColon") + genArgsValue(t, depth+1)
	})
}

func genArgsContainer(t *rapid.T, depth int, open, close string, elem func() string) string {
	n := rapid.IntRange(0, 4).Draw(t, "argLen")
	var b strings.Builder
	b.WriteString(open)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(rapid.SampledFrom([]string{",", ", ", ",\n  "}).Draw(t, "argSep"))
		}
		b.WriteString(elem())
	}
	b.WriteString(close)
	return b.String()
}

// toolArgPrefixes is every UTF-16 prefix of one tool call's argument JSON:
// what parseStreamingJson sees as the deltas arrive, cut anywhere (inside
// escapes, between surrogate halves, mid-number, mid-literal).
func toolArgPrefixes(t *rapid.T) []string {
	units := pi.ToUTF16(pi.Normalize(genArgsObject(t, 0)))
	out := make([]string, 0, len(units)+1)
	for cut := 0; cut <= len(units); cut++ {
		out = append(out, pi.FromUTF16(units[:cut]))
	}
	return out
}

// pi-ai utils/json-parse.js parseStreamingJson (partial-json 0.1.7 parse):
// every prefix of generated tool-call arguments parses as pi-ai parses it,
// in model/frames and in impl/frames.
func TestToolArgPrefixesMatchPiAI(t *testing.T) {
	p := peer.Open(t)
	draws := 400
	if testing.Short() {
		draws = 60
	}
	var inputs []string
	for seed := 0; seed < draws; seed++ {
		inputs = append(inputs, rapidDraw(seed, toolArgPrefixes)...)
	}
	for start := 0; start < len(inputs); start += 1000 {
		checkStreamingJSON(t, p, inputs[start:min(start+1000, len(inputs))])
	}
	t.Logf("%d prefixes compared", len(inputs))
}

// The model and the port agree beyond what JSON.stringify shows the peer:
// NaN, ±Infinity and -0 are told apart (the observer's catch-up rule
// compares numbers by SameValue).
func TestModelStreamingJSONSameValueAsPort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		for _, s := range toolArgPrefixes(rt) {
			m, i := modelframes.ParseStreamingJSON(s), frames.ParseStreamingJSON(s)
			require.True(rt, m.Equal(i), "input %s: model %s, port %s", pi.QuoteJSON(s), m, i)
		}
		s := genStreamingInput(rt)
		m, i := modelframes.ParseStreamingJSON(pi.Normalize(s)), frames.ParseStreamingJSON(pi.Normalize(s))
		require.True(rt, m.Equal(i), "input %s: model %s, port %s", pi.QuoteJSON(s), m, i)
	})
}
