package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Shrink reduces a failing scenario greedily while fails keeps reporting
// true: it drops blocks, faults and usage, and shortens bodies, until no
// single step helps. The result is a minimal stream for the same failure.
func Shrink(sc Scenario, fails func(Scenario) bool) Scenario {
	for changed := true; changed; {
		changed = false
		for _, cand := range shrinkSteps(sc) {
			if fails(cand) {
				sc, changed = cand, true
				break
			}
		}
	}
	return sc
}

func shrinkSteps(sc Scenario) []Scenario {
	var out []Scenario
	with := func(f func(*Scenario)) {
		c := cloneScenario(sc)
		f(&c)
		out = append(out, c)
	}
	for i := range sc.Truth.Blocks {
		with(func(c *Scenario) { c.Truth.Blocks = append(c.Truth.Blocks[:i:i], c.Truth.Blocks[i+1:]...) })
	}
	tp := sc.Transport
	if tp.Failure != "" {
		with(func(c *Scenario) { c.Transport.Failure, c.Transport.FailAt, c.Transport.Status = "", 0, 0 })
	}
	if len(tp.Cuts) > 0 {
		with(func(c *Scenario) { c.Transport.Cuts = nil })
		with(func(c *Scenario) { c.Transport.Cuts = c.Transport.Cuts[1:] })
	}
	if len(tp.Pings) > 0 {
		with(func(c *Scenario) { c.Transport.Pings = nil })
	}
	if tp.CRLF {
		with(func(c *Scenario) { c.Transport.CRLF = false })
	}
	if tp.Interleave {
		with(func(c *Scenario) { c.Transport.Interleave, c.Transport.Order = false, nil })
	}
	if tp.ArgsAtStart {
		with(func(c *Scenario) { c.Transport.ArgsAtStart = false })
	}
	if sc.Truth.Usage != (TUsage{}) {
		with(func(c *Scenario) { c.Truth.Usage = TUsage{} })
	}
	if sc.Truth.Length {
		with(func(c *Scenario) { c.Truth.Length = false })
	}
	for i, b := range sc.Truth.Blocks {
		if len(b.Pieces) > 0 {
			with(func(c *Scenario) { c.Truth.Blocks[i].Pieces = nil })
		}
		if r := []rune(b.Text); len(r) > 1 {
			with(func(c *Scenario) { c.Truth.Blocks[i].Text = string(r[:len(r)/2]) })
			with(func(c *Scenario) { c.Truth.Blocks[i].Text = string(r[1:]) })
		}
		if b.Signature != "" && b.Kind != KRedacted {
			with(func(c *Scenario) { c.Truth.Blocks[i].Signature = "" })
		}
		for _, small := range []string{`{}`, `{"q":1}`} {
			if b.Kind == KToolCall && len(b.ArgsJSON) > len(small) {
				with(func(c *Scenario) { c.Truth.Blocks[i].ArgsJSON = small })
			}
		}
	}
	return out
}

func cloneScenario(sc Scenario) Scenario {
	raw, _ := json.Marshal(sc)
	var c Scenario
	_ = json.Unmarshal(raw, &c)
	return c
}

// CorpusSchema versions corpus/sse entries.
const CorpusSchema = "frameproof.sse/1"

// CorpusEntry is a minimal failing (or regression) SSE transcript.
type CorpusEntry struct {
	Schema    string   `json:"schema"`
	Subject   string   `json:"subject"`
	Wire      string   `json:"wire"`
	Reproduce string   `json:"reproduce"`
	Rules     []string `json:"rules"`
	Note      string   `json:"note,omitempty"`
	Scenario  Scenario `json:"scenario"`
	Status    int      `json:"status"`
	Abort     bool     `json:"abort,omitempty"`
	Chunks    []int    `json:"chunks,omitempty"`
	// SSE is the exact byte stream the server sends.
	SSE string `json:"sse"`
}

// NewCorpusEntry records a checked result.
func NewCorpusEntry(subject, reproduce string, res Result) CorpusEntry {
	seen := map[string]bool{}
	var rules []string
	for _, v := range res.Violations {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			rules = append(rules, v.Rule)
		}
	}
	sort.Strings(rules)
	return CorpusEntry{Schema: CorpusSchema, Subject: subject, Wire: res.Scenario.Wire, Reproduce: reproduce, Rules: rules,
		Scenario: res.Scenario, Status: res.Rendered.Status, Abort: res.Rendered.Abort, Chunks: res.Rendered.Chunks,
		SSE: string(res.Rendered.Body)}
}

// Rendered returns the entry's stored bytes.
func (e CorpusEntry) Rendered() Rendered {
	return Rendered{Status: e.Status, Body: []byte(e.SSE), Chunks: e.Chunks, Abort: e.Abort}
}

// WriteCorpusEntry saves e as dir/name.json.
func WriteCorpusEntry(dir, name string, e CorpusEntry) (string, error) {
	raw, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return "", fmt.Errorf("provider: corpus entry: %w", err)
	}
	path := filepath.Join(dir, name+".json")
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return "", fmt.Errorf("provider: write corpus entry: %w", err)
	}
	return path, nil
}

// ReadCorpusEntry loads and validates one corpus/sse file.
func ReadCorpusEntry(path string) (CorpusEntry, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return CorpusEntry{}, fmt.Errorf("provider: read corpus entry: %w", err)
	}
	var e CorpusEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return CorpusEntry{}, fmt.Errorf("provider: corpus entry %s: %w", path, err)
	}
	if e.Schema != CorpusSchema {
		return CorpusEntry{}, fmt.Errorf("provider: corpus entry %s: schema %q, want %q", path, e.Schema, CorpusSchema)
	}
	return e, nil
}
