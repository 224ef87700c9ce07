package codec

import (
	"testing"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
)

// streamingArgs is a tool call's arguments as a provider streams them: the
// observer parses every prefix until the deltas catch up, so the cost per
// prefix is what a stream pays per delta.
const streamingArgs = `{"path":"src/main.go","edits":[{"old":"func main() {\n\tfmt.Println(\"hi\")\n}","new":"func main() {\n\tfmt.Println(\"héllo 😀\")\n}"},{"old":"x := 1","new":"x := 2.5e-3"}],"dryRun":false,"tags":["a","b",null]}`

// The model's parser (model/frames) beside the port (impl/frames) on every
// prefix of one tool call's arguments.
func BenchmarkStreamingJSONPrefixes(b *testing.B) {
	units := pi.ToUTF16(streamingArgs)
	prefixes := make([]string, len(units))
	for i := range units {
		prefixes[i] = pi.FromUTF16(units[:i+1])
	}
	for _, side := range []struct {
		name  string
		parse func(string) pi.JSONValue
	}{{"impl", frames.ParseStreamingJSON}, {"model", modelframes.ParseStreamingJSON}} {
		b.Run(side.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				for _, p := range prefixes {
					side.parse(p)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(prefixes)), "ns/prefix")
		})
	}
}
