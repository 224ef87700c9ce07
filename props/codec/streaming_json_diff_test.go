package codec

import (
	"encoding/json"
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// handPickedStreamingJSON are inputs aimed at partial-json's and repairJson's
// quirks; each runs through pi-ai and the Go port.
var handPickedStreamingJSON = []string{
	"", " ", "\u00a0", "\ufeff", "null", "nu", "n", "[nu", "{\"a\":nu", "true", "t", "f", "fals",
	"Infinity", "Inf", "-Inf", "-", "-I", "NaN", "N", "[NaN, Infinity, -Infinity]", "[-I",
	"1", "1.", "1e", "1e+", "-1.5e-", "01", "[1.", "[1e", "[1 2]", "[1e5,,", "{\"a\":1.}", "{\"a\":-}",
	"{\"a\":1e}", "12abc", "1 2", "[,", "[,]", "[}", "{\"a\":[}", "{}", "{", "{\"", "{\"a", "{\"a\"", "{\"a\":",
	"{\"a\":\"", "{\"a\":\"b", "{\"a\":\"b\\", "{\"a\":\"b\\u12", "{\"a\":\"\\ud83d", "{\"a\":\"\\ud83d\\ude00\"}",
	"\"abc", "\"abc\\", "\"a\\qb\"", "\"a\nb\"", "{\"a\":\"x\ty\"}", "\"\\x\"", "\"\\u12\"", "{\"a\":\"\\u00zz\"}",
	"{a:1}", "{'a':1}", "{\"a\" 1}", "{\"a\"::1}", "{1:2}", "{\"1\":1,\"b\":2,\"0\":3}", "{\"a\":1,\"a\":2}",
	"{\"__proto__\":{\"x\":1},\"y\":2", "{\"__proto__\":null,\"__proto__\":5", "{\"__proto__\":5,\"z\":1",
	"{\"__proto__\":[1],\"__proto__\":2", "{\"__proto__\":{\"__proto__\":null,\"__proto__\":1},\"__proto__\":3",
	"[\"a\",\"b", "[[[", "[[1,[2,", "{\"a\":{\"b\":{\"c\":[1,2,{\"d\":", "{\"a\":1} xyz", "[1] 2", "\"\\\\\"",
	"{\"a\":\"\\\"", "{\"a\":\"\\\\\\\"b", "{\"k\":\"v\",", "{\"k\":\"v\",\"", " {\"a\":1", "\t[1,2\n",
	"{\"a\":tr", "{\"a\":true,\"b\":fa", "[0,-0,1e400,-1e400]", "{\"a\":-0", "[1e999", "{\"e\":1e", "\"e\\",
	"{\"a\\\":1", "{\"a\":\"\\u", "{\"a\":\"\\uD83D\\u", "[\"\\ud83d\"", "[\"\x01\"]", "[\"\x01", "{\"\x01\":1}",
	"{\"a\":\"😀", "[\"é", "{\"a\":[1,2,3],\"b\":{\"c\":\"d\"}}", "[\"a\"\"b\"]", "{\"a\"}", "{\"a\",\"b\":1}",
	"{,\"a\":1}", "[1,,2]", "{\"a\":1,,\"b\":2}", "{\"a\":Infinity}", "{\"a\":-Infinity", "{\"a\":NaN,",
	"{\"a\":nulx}", "{\"a\":n\"}", "[tru]", "[true false]", "{\"a\":1 \"b\":2}", "\\", "\\\"", "\"\\",
	"{\"0\":{\"1\":[\"2\"", "{\"[object Object]\":1", "{\"a\":{}}", "{\"a\":[]}", "{\"a\":[] ,", "{\"a\" : [ 1 , ", "{\"b\":{ }, \"c\":1", "[{ }, 2", "[ ], 1",
	// partial-json skips one UTF-16 unit as the colon, half of an astral character
	"{\"a\"é\"x\"}", "{\"a\"😀1}", "[{\"a\"😀1},2]", "[{\"a\"😀\"x\"},2]",
	// parseNum's retry JSON.parse(substring(start, lastIndexOf("e"))): with
	// no 'e' it is all the text before the number, which parses once `[ ]`
	// has desynced the nesting (retryAtLastE's cases, each side of a number)
	"[{\"a\":[ ]},\"[{\",\"\",1] x", "[{\"a\":[ ]},\"[{\",\"\",1],x", "[{\"a\":[ ]},\"[{\",\"\",{\"b\":[1,2]}] 7x",
	"[[-e,[-e,[-e,", "[{\"a\":-e,{\"a\":-e,", "[[-x,[-x,", "[[1e5],[-x,[-x", "[1ex,2",
}

func quoteInputs(in []string) []json.RawMessage {
	out := make([]json.RawMessage, len(in))
	for i, s := range in {
		out[i] = json.RawMessage(pi.QuoteJSON(pi.Normalize(s)))
	}
	return out
}

// checkStreamingJSON compares pi-ai's parseStreamingJson with the Go port
// (impl/frames) and with the model's own statement of it (model/frames).
func checkStreamingJSON(t *testing.T, p *peer.Peer, inputs []string) {
	t.Helper()
	results, err := p.ParseStreamingJSON(quoteInputs(inputs))
	require.NoError(t, err)
	require.Len(t, results, len(inputs))
	for i, s := range inputs {
		got := string(frames.ParseStreamingJSON(pi.Normalize(s)).AppendJSON(nil))
		require.Equal(t, string(results[i]), got, "impl, input %s", pi.QuoteJSON(s))
		got = string(modelframes.ParseStreamingJSON(pi.Normalize(s)).AppendJSON(nil))
		require.Equal(t, string(results[i]), got, "model, input %s", pi.QuoteJSON(s))
	}
}

func TestStreamingJSONHandPickedMatchesPiAI(t *testing.T) {
	p := peer.Open(t)
	checkStreamingJSON(t, p, handPickedStreamingJSON)
}

// genJSONDocument draws a JSON text with nesting, integer-like keys, escapes,
// astral text and numbers of every shape.
func genJSONDocument(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 7).Draw(t, "kind")
	if depth > 3 && kind >= 5 {
		kind = 0
	}
	switch kind {
	case 0:
		return pi.QuoteJSON(genText(t, "s"))
	case 1:
		return rapid.SampledFrom([]string{"0", "-0", "1", "-12.5", "1e21", "1.5E-7", "123456789012345678901", "0.1"}).Draw(t, "num")
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")
	case 3, 4:
		return pi.QuoteJSON(rapid.SampledFrom([]string{"a", "b", "é", "😀 x", "\"q\"", "back\\slash", "\n", "\u0001"}).Draw(t, "str"))
	case 5:
		n := rapid.IntRange(0, 4).Draw(t, "n")
		s := "[" + genBlank(t)
		for i := 0; i < n; i++ {
			if i > 0 {
				s += rapid.SampledFrom([]string{",", ", ", " ,\n"}).Draw(t, "sep")
			}
			s += genJSONDocument(t, depth+1)
		}
		return s + genBlank(t) + "]"
	default:
		n := rapid.IntRange(0, 4).Draw(t, "n")
		s := "{" + genBlank(t)
		for i := 0; i < n; i++ {
			if i > 0 {
				s += rapid.SampledFrom([]string{",", ", ", " ,\n"}).Draw(t, "sep")
			}
			key := rapid.SampledFrom([]string{"a", "b", "0", "1", "10", "01", "__proto__", "k😀", "x y", "-1"}).Draw(t, "key")
			s += pi.QuoteJSON(key) + rapid.SampledFrom([]string{":", " : "}).Draw(t, "colon") + genJSONDocument(t, depth+1)
		}
		return s + genBlank(t) + "}"
	}
}

// genBlank is the whitespace a writer may put inside brackets: empty
// containers with blanks inside ("{ }") take their own path in pi-ai's
// partial parser.
func genBlank(t *rapid.T) string {
	return rapid.SampledFrom([]string{"", "", " ", "\n  "}).Draw(t, "blank")
}

func genText(t *rapid.T, label string) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "bc", " ", "é", "€", "😀", "\n", "\"", "\\", "\t", "\u0002", "\xed\xa0\xbd", "\xed\xb8\x80", "{", "}", "[", ",", ":"}), 0, 8).Draw(t, label)
	s := ""
	for _, p := range parts {
		s = pi.Concat(s, p)
	}
	return s
}

// genStreamingInput is a JSON document cut at a random code unit and
// possibly corrupted, as a provider's tool-call stream could leave it.
func genStreamingInput(t *rapid.T) string {
	doc := pi.ToUTF16(genJSONDocument(t, 0))
	cut := rapid.IntRange(0, len(doc)).Draw(t, "cut")
	u := append([]uint16(nil), doc[:cut]...)
	switch rapid.IntRange(0, 5).Draw(t, "corrupt") {
	case 0:
		if len(u) > 0 {
			i := rapid.IntRange(0, len(u)-1).Draw(t, "at")
			u[i] = uint16(rapid.SampledFrom([]rune{'\\', '"', '\n', 'x', '}', ']', ',', 0x01, 0xD83D, 'e', '-', ' '}).Draw(t, "with"))
		}
	case 1:
		if len(u) > 0 {
			i := rapid.IntRange(0, len(u)-1).Draw(t, "del")
			u = append(u[:i], u[i+1:]...)
		}
	}
	return pi.FromUTF16(u)
}

func TestStreamingJSONGeneratedMatchesPiAI(t *testing.T) {
	p := peer.Open(t)
	n := 12000
	if testing.Short() {
		n = 1000
	}
	var inputs []string
	rapid.Check(t, func(rt *rapid.T) {
		inputs = append(inputs, genStreamingInput(rt))
	})
	// rapid.Check draws -rapid.checks cases (TestMain sets 1000, 200 under
	// -short); draw the rest with seeds.
	for len(inputs) < n {
		seed := len(inputs)
		inputs = append(inputs, rapidDraw(seed, genStreamingInput))
	}
	for start := 0; start < len(inputs); start += 1000 {
		end := min(start+1000, len(inputs))
		checkStreamingJSON(t, p, inputs[start:end])
	}
	t.Logf("%d inputs compared", len(inputs))
}

// rapidDraw runs a generator function once with a fixed seed, for bulk
// differential inputs that do not need shrinking.
func rapidDraw[T any](seed int, f func(*rapid.T) T) T {
	return rapid.Custom(f).Example(seed)
}
