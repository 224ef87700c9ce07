package corpus

import (
	"fmt"
	"path/filepath"
)

// Outcome is the verdict on one corpus entry: Err is nil when it passed.
type Outcome struct {
	Name string
	Err  error
}

// Family is one kind of corpus entry and the in-process runner for it.
type Family struct {
	Name   string
	Schema string // the entries' schema, as their files name it
	Dir    string // relative to the corpus root
	// Run checks every entry under root. A non-nil error means the family
	// could not be read at all (missing directory, unreadable file).
	Run func(root string) ([]Outcome, error)
}

// Families lists every corpus family, in the order corpus run reports them.
var Families = []Family{
	{Name: "codec", Schema: "1", Dir: "vectors/codec", Run: RunCodecFamily},
	{Name: "replay", Schema: "1", Dir: "vectors/replay", Run: RunReplayFamily},
	{Name: "jsonl", Schema: "1", Dir: "jsonl", Run: RunJSONLFamily},
	{Name: "sse", Schema: "frameproof.sse/1", Dir: "sse", Run: RunSSEFamily},
}

// RunCodecFamily runs every codec vector against impl/frames.
func RunCodecFamily(root string) ([]Outcome, error) {
	vs, err := LoadCodec(CodecDir(root))
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(vs))
	for i, v := range vs {
		out[i].Name = v.Name
		verdict, err := CheckCodec(GoCodec{}, v)
		switch {
		case err != nil:
			out[i].Err = err
		case !verdict.Pass:
			out[i].Err = fmt.Errorf("%s: %s", v.Where(), verdict.Diff)
		}
	}
	return out, nil
}

func globSorted(root, dir, pattern string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), pattern))
	if err != nil {
		return nil, fmt.Errorf("corpus: list %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus: no %s files in %s", pattern, filepath.Join(root, filepath.FromSlash(dir)))
	}
	return files, nil // Glob sorts
}
