package pirecovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/sessionrecovery"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// Verdict is one crash point compared.
type Verdict struct {
	Run   string
	K, Of int
	Shape Shape
	// Recover is frameproof recover's (impl/sessionrecovery) agreement with
	// pi's recovery transaction; Lane is impl/lane's with pi's whole reopen.
	Recover, Lane Agreement
}

// Agreement is one side's comparison with pi.
type Agreement struct {
	Agree bool
	Diff  string // empty when Agree
}

// Agrees reports both sides agreeing with pi.
func (v Verdict) Agrees() bool { return v.Recover.Agree && v.Lane.Agree }

// Shape is a recovery's distinguishing features: the last committed frame of
// the orphaned list ("none" for an empty or absent list), the leaf the
// operation was at (with "+cancel" when cancel was requested), and what pi's
// recovery left: the operation's next leaf, or the result status it
// terminated with. A point without a pi recovery transaction has the zero
// Shape.
type Shape struct {
	LastFrame, Leaf, Disposition string
}

func (s Shape) String() string {
	if s == (Shape{}) {
		return "no recovery"
	}
	return fmt.Sprintf("last frame %s, at %s → %s", s.LastFrame, s.Leaf, s.Disposition)
}

// Compare compares one point on both sides, frameproof under the release
// rel's options. scratch is a directory for the images' copies.
func Compare(p Point, scratch string, rel Release) (Verdict, error) {
	v := Verdict{Run: p.Run, K: p.K, Of: p.Of}
	var piTx []json.RawMessage
	if p.Recovery >= 0 {
		if p.Recovery >= len(p.Reopen) {
			return v, fmt.Errorf("pirecovery: %s k=%d: recovery index %d past %d reopen lines", p.Run, p.K, p.Recovery, len(p.Reopen))
		}
		var err error
		if piTx, err = Records(p.Reopen[p.Recovery]); err != nil {
			return v, err
		}
		if v.Shape, err = shapeOf(p.Crashed, piTx); err != nil {
			return v, err
		}
	}
	fpTx, err := recoverTransaction(p, scratch, rel)
	if err != nil {
		v.Recover.Diff = "frameproof recover: " + err.Error()
	} else {
		v.Recover.Diff = diffRecords("pi recovery", piTx, "frameproof recover", fpTx)
	}
	v.Recover.Agree = v.Recover.Diff == ""

	laneLines, err := laneReopen(p, scratch, rel)
	if err != nil {
		v.Lane.Diff = "impl/lane: " + err.Error()
	} else {
		v.Lane.Diff = diffLines(p.Reopen, laneLines)
	}
	v.Lane.Agree = v.Lane.Diff == ""
	return v, nil
}

// recoverTransaction is what frameproof recover --now ReopenT would commit
// for the image: every orphan's transaction records, in order.
func recoverTransaction(p Point, scratch string, rel Release) ([]json.RawMessage, error) {
	path, err := writeImage(scratch, "recover", p.Crashed)
	if err != nil {
		return nil, err
	}
	e := env.Production()
	e.Clock = sessionrecovery.FrozenClock{T: time.UnixMilli(ReopenT)}
	e.IDs = &counterIDs{prefix: ReopenIDPrefix}
	rep, err := sessionrecovery.Inspect(e, path, sessionrecovery.Options{DefaultMaxAgentDelayMs: rel.UnsetDelayCap,
		ErrorPatterns: rel.ErrorPatterns})
	if err != nil {
		return nil, err
	}
	var out []json.RawMessage
	for _, o := range rep.Orphans {
		out = append(out, o.Transaction...)
	}
	return out, nil
}

// laneReopen opens a copy of the image with impl/lane and steps it as pi's
// lane.resume drives (one deferred permit, no retry wait), until a provider
// call, a wait, idle, settlement or an error; it returns the lines appended
// before the provider call (or all of them).
func laneReopen(p Point, scratch string, rel Release) ([]string, error) {
	path, err := writeImage(scratch, "lane", p.Crashed)
	if err != nil {
		return nil, err
	}
	e := env.Production()
	e.Clock = sessionrecovery.FrozenClock{T: time.UnixMilli(ReopenT)}
	e.IDs = &counterIDs{prefix: ReopenIDPrefix}
	st, err := jsonl.Open(e, path, jsonl.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	prov := &cutProvider{path: path, image: len(p.Crashed)}
	retry := lane.RetryPolicy{MaxAttempts: 1, BaseDelayMs: p.Harness.Retry.BaseDelayMs, MaxAgentDelayMs: p.Harness.Retry.MaxAgentDelayMs}
	if retry.MaxAgentDelayMs == nil {
		retry.MaxAgentDelayMs = rel.StoredDelayCap
	}
	if p.Harness.Retry.Enabled {
		retry.MaxAttempts = p.Harness.Retry.MaxRetries + 1
	}
	streamOpts := pi.JSONValue{}
	if len(p.Harness.StreamOptions) > 0 {
		if streamOpts, err = pi.ParseJSON(string(p.Harness.StreamOptions)); err != nil {
			return nil, fmt.Errorf("stream options: %w", err)
		}
	}
	l, err := lane.Open(lane.Config{
		Name: laneName, Storage: st, Clock: e.Clock, IDs: e.IDs, Exec: e.Executor, Provider: prov,
		DefaultMaxAgentDelayMs: rel.UnsetDelayCap, ErrorPatterns: rel.ErrorPatterns,
		// the faux model's limits (pi-ai providers/faux.js defaults)
		Limits: lane.ModelLimits{MaxTokens: 16384, ContextWindow: 128000},
		Generation: &lane.GenerationConfig{
			Configuration: lane.Configuration{Model: lane.ModelRef{Provider: "faux", ModelID: "faux-1"}, ThinkingLevel: "off", ActiveToolNames: []string{}},
			StreamOptions: streamOpts,
			RetryPolicy:   retry,
		},
	})
	if err != nil {
		return nil, err
	}
	defer l.Close()
	permit := true
	for range 64 {
		r, err := l.Step(lane.StepOptions{DeferredPermit: permit})
		if prov.called() {
			return prov.lines, nil
		}
		if err != nil {
			return nil, err
		}
		if r.Kind != lane.StepProgress {
			break
		}
		permit = false
	}
	return appended(path, len(p.Crashed))
}

const laneName = "main"

// cutProvider records the lines on file at its first call and answers with a
// stream that fails at once (its settlement is past the cut).
type cutProvider struct {
	path  string
	image int
	mu    sync.Mutex
	lines []string
	seen  bool
	err   error
}

func (c *cutProvider) Stream(lane.Request) lane.Stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen {
		c.seen = true
		c.lines, c.err = appended(c.path, c.image)
	}
	return failStream{}
}

func (c *cutProvider) called() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen
}

type failStream struct{}

func (failStream) Next() (pi.Event, error) {
	return pi.Event{}, fmt.Errorf("pirecovery: the reopen is cut at the provider call")
}

func appended(path string, image int) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < image {
		return nil, fmt.Errorf("the session file shrank below the crash image")
	}
	var out []string
	for _, l := range strings.Split(string(b[image:]), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

func writeImage(scratch, name, image string) (string, error) {
	dir, err := os.MkdirTemp(scratch, name+"-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "session.jsonl")
	return path, os.WriteFile(path, []byte(image), 0o644)
}

// counterIDs mints what the script's reopen idGenerator mints.
type counterIDs struct {
	mu     sync.Mutex
	prefix string
	n      int
}

func (c *counterIDs) NewID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return fmt.Sprintf("%s%012x", c.prefix, c.n)
}

func diffRecords(an string, a []json.RawMessage, bn string, b []json.RawMessage) string {
	var d strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		var x, y []byte
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if !bytes.Equal(x, y) {
			fmt.Fprintf(&d, "record %d:\n  %s: %s\n  %s: %s\n", i+1, an, orNone(x), bn, orNone(y))
		}
	}
	if d.Len() > 0 {
		return fmt.Sprintf("%s: %d records, %s: %d records\n%s", an, len(a), bn, len(b), d.String())
	}
	return ""
}

func diffLines(pi, fp []string) string {
	var d strings.Builder
	for i := 0; i < max(len(pi), len(fp)); i++ {
		var x, y string
		if i < len(pi) {
			x = pi[i]
		}
		if i < len(fp) {
			y = fp[i]
		}
		if x != y {
			fmt.Fprintf(&d, "line %d:\n  pi:        %s\n  impl/lane: %s\n", i+1, orNone([]byte(x)), orNone([]byte(y)))
		}
	}
	if d.Len() > 0 {
		return fmt.Sprintf("pi reopen: %d lines, impl/lane: %d lines\n%s", len(pi), len(fp), d.String())
	}
	return ""
}

func orNone(b []byte) string {
	if len(b) == 0 {
		return "(none)"
	}
	return string(b)
}

// shapeOf reads the image's orphan (its leaf and last frame) and the
// disposition from pi's recovery records.
func shapeOf(image string, tx []json.RawMessage) (Shape, error) {
	type rec struct {
		Kind      string          `json:"kind"`
		Op        string          `json:"op"`
		Namespace string          `json:"namespace"`
		Key       string          `json:"key"`
		Value     json.RawMessage `json:"value"`
	}
	type state struct {
		At      string `json:"at"`
		Control struct {
			Status string `json:"status"`
		} `json:"control"`
		ResponseEntryID string `json:"responseEntryId"`
	}
	last := map[string]string{}
	states := map[string]state{}
	lines := strings.Split(strings.TrimSuffix(image, "\n"), "\n")
	for _, l := range lines[1:] {
		rs, err := Records(l)
		if err != nil {
			return Shape{}, err
		}
		for _, raw := range rs {
			var r rec
			if err := json.Unmarshal(raw, &r); err != nil {
				return Shape{}, fmt.Errorf("pirecovery: shape: %w", err)
			}
			switch {
			case r.Kind == "list" && r.Namespace == lane.NSAssistantFrame && r.Op == "append":
				var f struct{ Type string }
				_ = json.Unmarshal(r.Value, &f)
				last[r.Key] = f.Type
			case r.Kind == "list" && r.Namespace == lane.NSAssistantFrame && r.Op == "delete":
				delete(last, r.Key)
			case r.Kind == "value" && r.Namespace == lane.NSOpState && r.Op == "set":
				var s state
				_ = json.Unmarshal(r.Value, &s)
				states[r.Key] = s
			case r.Kind == "value" && r.Namespace == lane.NSOpState && r.Op == "delete":
				delete(states, r.Key)
			}
		}
	}
	var sh Shape
	for _, raw := range tx {
		var r rec
		if err := json.Unmarshal(raw, &r); err != nil {
			return Shape{}, fmt.Errorf("pirecovery: shape: %w", err)
		}
		switch {
		case r.Kind == "value" && r.Namespace == lane.NSOpState && r.Op == "set":
			s, ok := states[r.Key]
			if ok && sh.Leaf == "" {
				sh.Leaf = s.At
				if s.Control.Status == "cancel_requested" {
					sh.Leaf += "+cancel"
				}
				sh.LastFrame = last[r.Key+":"+s.ResponseEntryID]
			}
			var next state
			_ = json.Unmarshal(r.Value, &next)
			sh.Disposition = next.At
		case r.Kind == "value" && r.Namespace == lane.NSResult && r.Op == "set":
			var res struct{ Status string }
			_ = json.Unmarshal(r.Value, &res)
			sh.Disposition = "terminal " + res.Status
		case r.Kind == "value" && r.Namespace == lane.NSOpState && r.Op == "delete":
			if s, ok := states[r.Key]; ok && sh.Leaf == "" {
				sh.Leaf = s.At
				if s.Control.Status == "cancel_requested" {
					sh.Leaf += "+cancel"
				}
				sh.LastFrame = last[r.Key+":"+s.ResponseEntryID]
			}
		}
	}
	if sh.LastFrame == "" {
		sh.LastFrame = "none"
	}
	return sh, nil
}
