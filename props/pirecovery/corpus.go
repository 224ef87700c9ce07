package pirecovery

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// EntrySchema names the corpus entry format.
const EntrySchema = "frameproof/pi-recovery/v1"

// Entry is one recovery shape kept as a corpus entry: a crash image and what
// pi's reopen committed for it, replayed by go test without node.
type Entry struct {
	Schema string `json:"schema"`
	// Pi is the pi-agent-core version that recovered it.
	Pi    string `json:"pi"`
	Run   string `json:"run"`
	K     int    `json:"k"`
	Of    int    `json:"of"`
	Shape struct {
		LastFrame   string `json:"lastFrame"`
		Leaf        string `json:"leaf"`
		Disposition string `json:"disposition"`
	} `json:"shape"`
	// ReopenT is the instant both sides recover at (Unix ms); ids minted on
	// reopen are ReopenIDPrefix + 12 hex digits from 1.
	ReopenT int64   `json:"reopenT"`
	Harness Harness `json:"harness"`
	// Crashed is the session file at the crash.
	Crashed string `json:"crashed"`
	// Reopen are the lines pi's reopen appended until its first provider
	// call, retry wait or return; Recovery indexes the recovery transaction.
	Reopen   []string `json:"reopen"`
	Recovery int      `json:"recovery"`
	Cut      string   `json:"cut"`
}

// Point returns the entry as a sweep point, for Compare.
func (e Entry) Point() Point {
	return Point{Run: e.Run, K: e.K, Of: e.Of, Crashed: e.Crashed, Reopen: e.Reopen, Recovery: e.Recovery, Cut: e.Cut, Harness: e.Harness}
}

// ShapeEntries returns one entry per distinct recovery shape, the first
// point met with it.
func (r Report) ShapeEntries() []Entry {
	seen := map[Shape]bool{}
	var out []Entry
	for i, v := range r.Verdicts {
		if v.Shape == (Shape{}) || seen[v.Shape] {
			continue
		}
		seen[v.Shape] = true
		p := r.Points[i]
		e := Entry{Schema: EntrySchema, Pi: r.Summary.Version, Run: p.Run, K: p.K, Of: p.Of, ReopenT: ReopenT,
			Harness: p.Harness, Crashed: p.Crashed, Reopen: p.Reopen, Recovery: p.Recovery, Cut: p.Cut}
		e.Shape.LastFrame, e.Shape.Leaf, e.Shape.Disposition = v.Shape.LastFrame, v.Shape.Leaf, v.Shape.Disposition
		out = append(out, e)
	}
	return out
}

var unsafeName = regexp.MustCompile(`[^a-z0-9]+`)

// FileName is the entry's file name: its shape, readable.
func (e Entry) FileName() string {
	n := strings.ToLower(e.Shape.LastFrame + "-" + e.Shape.Leaf + "-" + e.Shape.Disposition)
	return strings.Trim(unsafeName.ReplaceAllString(n, "-"), "-") + ".json"
}

// WriteEntries writes entries into dir, one indented JSON file each.
func WriteEntries(dir string, entries []Entry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		b, err := json.MarshalIndent(e, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.FileName()), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ReadEntries reads every *.json entry in dir.
func ReadEntries(dir string) ([]Entry, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var e Entry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if e.Schema != EntrySchema {
			return nil, fmt.Errorf("%s: schema %q, want %q", p, e.Schema, EntrySchema)
		}
		out = append(out, e)
	}
	return out, nil
}
