package corpus

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/props/provider"
)

// RunSSEFamily replays every corpus/sse transcript (frameproof.sse/1)
// through the Go reference adapter, which must keep the whole pi-ai event
// contract on it. (props/provider's own test also replays the pi-ai
// reproducers against pi-ai when the peer is installed.)
func RunSSEFamily(root string) ([]Outcome, error) {
	files, err := globSorted(root, "sse", "*.json")
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(files))
	for i, f := range files {
		out[i].Name = strings.TrimSuffix(filepath.Base(f), ".json")
		out[i].Err = checkSSE(f)
	}
	return out, nil
}

func checkSSE(path string) error {
	e, err := provider.ReadCorpusEntry(path)
	if err != nil {
		return err
	}
	if e.Schema != provider.CorpusSchema {
		return fmt.Errorf("schema %q, want %q", e.Schema, provider.CorpusSchema)
	}
	res, err := provider.RunRendered(provider.GoSubject{}, e.Scenario, e.Rendered())
	if err != nil {
		return err
	}
	if len(res.Violations) > 0 {
		var rules []string
		for _, v := range res.Violations {
			rules = append(rules, v.Rule)
		}
		return fmt.Errorf("Go reference adapter breaks %s", strings.Join(rules, ", "))
	}
	return nil
}
