package replay

import (
	"bytes"
	"testing"

	impl "github.com/frameproof/frameproof/impl/replay"
	"pgregory.net/rapid"
)

// TestGeneratorCoverage: the generated transcripts reach every repair the
// projection makes, so the properties above are not vacuous.
func TestGeneratorCoverage(t *testing.T) {
	features := map[string][]byte{
		"unfinished call":  []byte("did not complete"),
		"prose result":     []byte("Result ("),
		"prose error":      []byte("Error ("),
		"unseen image":     []byte("not visible to this model"),
		"anthropic image":  []byte(`"type":"image"`),
		"thinking":         []byte(`"type":"thinking"`),
		"redacted":         []byte(`"redacted_thinking"`),
		"responses reason": []byte(`"type":"reasoning"`),
		"gemini thought":   []byte(`"thought":true`),
		"gemini sentinel":  []byte(impl.GeminiSkipSignature),
		"gemini lead-in":   []byte(impl.GeminiLeadIn),
		"chat tool images": []byte(impl.ToolImagesLeadIn),
		"no output":        []byte(impl.NoOutput),
		"is_error":         []byte(`"is_error":true`),
		"error response":   []byte(`"response":{"error"`),
	}
	hits := map[string]int{}
	missing := func() int {
		n := 0
		for name := range features {
			if hits[name] == 0 {
				n++
			}
		}
		return n
	}
	// Rare features (same-model Responses reasoning with a follower) need
	// more than one batch; keep drawing batches until all are seen, bounded.
	for batch := 0; batch < 40 && missing() > 0; batch++ {
		rapid.Check(t, func(rt *rapid.T) {
			target := TargetGen().Draw(rt, "target")
			msgs := TranscriptGen(target, maxRounds()).Draw(rt, "record")
			body, err := impl.Project(msgs, target, impl.Options{})
			if err != nil {
				return
			}
			for name, needle := range features {
				if bytes.Contains(body, needle) {
					hits[name]++
				}
			}
		})
	}
	for name := range features {
		if hits[name] == 0 {
			t.Errorf("no generated transcript reached %q", name)
		}
	}
	t.Logf("feature hits: %v", hits)
}
