package corpus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	model "github.com/frameproof/frameproof/model/replay"
	"github.com/frameproof/frameproof/model/wire"
)

// ReplayVector is corpus/vectors/replay/<name>.json, schema 1 (written by
// props/replay's TestVectorsUpdate, which owns the cases).
type ReplayVector struct {
	Schema         int                       `json:"schema"`
	Name           string                    `json:"name"`
	Source         string                    `json:"source"`
	Record         json.RawMessage           `json:"record"`
	Target         ReplayTarget              `json:"target"`
	Principal      *impl.Principal           `json:"principal,omitempty"`
	Microcompact   *impl.MicrocompactOptions `json:"microcompact,omitempty"`
	MustContain    []string                  `json:"mustContain,omitempty"`
	MustNotContain []string                  `json:"mustNotContain,omitempty"`
	Expected       json.RawMessage           `json:"expected"`
}

// ReplayTarget is a replay vector's wire target.
type ReplayTarget struct {
	Wire     string `json:"wire"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Vision   bool   `json:"vision"`
}

// ReadReplayVector decodes and checks the envelope of one replay vector.
func ReadReplayVector(path string) (ReplayVector, error) {
	var v ReplayVector
	data, err := readCorpusFile(path)
	if err != nil {
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, fmt.Errorf("corpus: %s: %w", path, err)
	}
	if v.Schema != 1 {
		return v, fmt.Errorf("corpus: %s: schema %d, want 1", path, v.Schema)
	}
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); v.Name != want {
		return v, fmt.Errorf("corpus: %s: name %q does not match the file name", path, v.Name)
	}
	return v, nil
}

// CheckReplay projects the vector's record with impl/replay and requires the
// stored body byte for byte, the reference model's agreement, the wire
// validator's acceptance and the vector's own must/mustNot strings.
func CheckReplay(v ReplayVector) error {
	msgs, err := impl.DecodeTranscript(string(v.Record))
	if err != nil {
		return fmt.Errorf("decode record: %w", err)
	}
	exp, err := pi.ParseJSON(string(v.Expected))
	if err != nil {
		return fmt.Errorf("decode expected: %w", err)
	}
	want := exp.AppendJSON(nil)
	t := v.Target
	got, err := impl.Project(msgs, impl.Target{Wire: t.Wire, Provider: t.Provider, Model: t.Model, Vision: t.Vision},
		impl.Options{Principal: v.Principal, Microcompact: v.Microcompact})
	if err != nil {
		return fmt.Errorf("impl/replay: %w", err)
	}
	if d := diffBytes("impl/replay body", want, got); d != "" {
		return fmt.Errorf("%s", d)
	}
	ref := msgs
	if v.Microcompact != nil {
		ref = model.Microcompact(ref, v.Microcompact.KeepRecent, v.Microcompact.Tools)
	}
	var p *model.Principal
	if v.Principal != nil {
		mp := model.Principal(*v.Principal)
		p = &mp
	}
	body, err := model.Project(ref, model.Target{Wire: t.Wire, Provider: t.Provider, Model: t.Model, Vision: t.Vision}, p)
	if err != nil {
		return err
	}
	if d := diffBytes("model/replay body", want, body); d != "" {
		return fmt.Errorf("%s", d)
	}
	if err := wire.Validate(t.Wire, got, wire.Options{Vision: t.Vision, Model: t.Model}); err != nil {
		return fmt.Errorf("model/wire rejects the body: %w", err)
	}
	for _, s := range v.MustContain {
		if !strings.Contains(string(got), s) {
			return fmt.Errorf("body lacks %q", s)
		}
	}
	for _, s := range v.MustNotContain {
		if strings.Contains(string(got), s) {
			return fmt.Errorf("body contains %q", s)
		}
	}
	return nil
}

// RunReplayFamily checks every replay vector.
func RunReplayFamily(root string) ([]Outcome, error) {
	files, err := globSorted(root, "vectors/replay", "*.json")
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(files))
	for i, f := range files {
		out[i].Name = strings.TrimSuffix(filepath.Base(f), ".json")
		v, err := ReadReplayVector(f)
		if err == nil {
			err = CheckReplay(v)
		}
		out[i].Err = err
	}
	return out, nil
}
