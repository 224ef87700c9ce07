package pirecovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Versions is the sweep run at several releases, the first the base the
// others are compared with.
type Versions struct {
	Releases []Release
	Reports  []Report
}

// explanations say why a member of pi's recovery transaction changes
// between releases, keyed by the member's path (namespace, then the JSON
// path inside the value). A change without one is unexplained.
var explanations = map[string]string{
	"pi.op.state generationContext.retryPolicy.maxAgentDelayMs": "from 0.87.1 pi writes pi-ai's retry-delay cap into every stored retry policy " +
		"(runtime/drive/boundary.js normalizedRetryPolicy: `maxAgentDelayMs ?? DEFAULT_MAX_AGENT_RETRY_DELAY_MS`, 60000); " +
		"frameproof: the run's `lane.RetryPolicy.MaxAgentDelayMs`",
	"pi.op.state notBefore": "from 0.87.1 the retry delay is capped: runtime/drive/retry.js retryNotBefore calls pi-ai's " +
		"`retryDelayMs` (min(baseDelayMs·2^(attempt−1), maxAgentDelayMs)) where 0.85.1's `retryDelay` has no cap; " +
		"frameproof: `lane.Config.DefaultMaxAgentDelayMs` / `sessionrecovery.Options.DefaultMaxAgentDelayMs` (+Inf for 0.85.1)",
}

// change is one member that differs between two releases' recovery
// transactions at one crash point.
type change struct{ path, from, to string }

// Unexplained counts the differing members no explanation covers.
func (v Versions) Unexplained() int {
	n := 0
	for i := 1; i < len(v.Reports); i++ {
		for _, g := range groupChanges(v.Reports[0], v.Reports[i]) {
			for _, p := range g.paths {
				if explanations[p] == "" {
					n++
				}
			}
		}
	}
	return n
}

// group is the crash points whose transactions differ in the same members.
type group struct {
	paths  []string
	points []string // "run k=K: from → to" of the members with values worth showing
}

func groupChanges(base, other Report) []group {
	at := map[string]Point{}
	for _, p := range other.Points {
		at[fmt.Sprintf("%s/%d", p.Run, p.K)] = p
	}
	byKey := map[string]*group{}
	var order []string
	for _, p := range base.Points {
		q, ok := at[fmt.Sprintf("%s/%d", p.Run, p.K)]
		if !ok {
			continue
		}
		cs := txChanges(p, q)
		if len(cs) == 0 {
			continue
		}
		var paths, shown []string
		for _, c := range cs {
			paths = append(paths, c.path)
			if !strings.HasSuffix(c.path, "maxAgentDelayMs") {
				shown = append(shown, fmt.Sprintf("%s %s → %s", c.path[strings.LastIndex(c.path, " ")+1:], c.from, c.to))
			}
		}
		key := strings.Join(paths, "|")
		g := byKey[key]
		if g == nil {
			g = &group{paths: paths}
			byKey[key] = g
			order = append(order, key)
		}
		line := fmt.Sprintf("%s k=%d", p.Run, p.K)
		if len(shown) > 0 {
			line += ": " + strings.Join(shown, ", ")
		}
		g.points = append(g.points, line)
	}
	out := make([]group, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// txChanges lists the members in which q's recovery transaction differs
// from p's (a transaction present at one release only is one change).
func txChanges(p, q Point) []change {
	tx := func(p Point) []json.RawMessage {
		if p.Recovery < 0 || p.Recovery >= len(p.Reopen) {
			return nil
		}
		rs, _ := Records(p.Reopen[p.Recovery])
		return rs
	}
	a, b := tx(p), tx(q)
	if len(a) != len(b) {
		return []change{{path: "transaction records", from: fmt.Sprint(len(a)), to: fmt.Sprint(len(b))}}
	}
	var out []change
	for i := range a {
		if bytes.Equal(a[i], b[i]) {
			continue
		}
		x, y := decode(a[i]), decode(b[i])
		ns := ""
		if m, ok := x.(map[string]any); ok {
			ns, _ = m["namespace"].(string)
		}
		valueDiff(ns, "", field(x, "value"), field(y, "value"), &out)
		if len(out) == 0 {
			out = append(out, change{path: ns + " record", from: string(a[i]), to: string(b[i])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func decode(raw []byte) any {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	_ = d.Decode(&v)
	return v
}

func field(v any, k string) any {
	if m, ok := v.(map[string]any); ok {
		return m[k]
	}
	return nil
}

// valueDiff appends the leaves in which x and y differ, by JSON path.
func valueDiff(ns, path string, x, y any, out *[]change) {
	mx, okx := x.(map[string]any)
	my, oky := y.(map[string]any)
	if okx && oky {
		keys := map[string]bool{}
		for k := range mx {
			keys[k] = true
		}
		for k := range my {
			keys[k] = true
		}
		for k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			vx, inx := mx[k]
			vy, iny := my[k]
			switch {
			case !inx:
				*out = append(*out, change{ns + " " + p, "absent", show(vy)})
			case !iny:
				*out = append(*out, change{ns + " " + p, show(vx), "absent"})
			default:
				valueDiff(ns, p, vx, vy, out)
			}
		}
		return
	}
	if show(x) != show(y) {
		*out = append(*out, change{ns + " " + path, show(x), show(y)})
	}
}

func show(v any) string {
	if n, ok := v.(json.Number); ok {
		if f, err := n.Float64(); err == nil && f > ReopenT-86_400_000 && f < ReopenT+86_400_000_000 {
			return fmt.Sprintf("reopen%+d", int64(f)-ReopenT) // an instant: relative to the reopen
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Write prints the version table (markdown): each release's figures, then
// what changes from the first release to each later one, every change
// with its explanation.
func (v Versions) Write(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| pi-agent-core | runs | crash points | with a pi recovery | frameproof recover agrees | impl/lane agrees | distinct shapes |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for i, r := range v.Reports {
		c := r.Counts()
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", v.Releases[i].Version, r.Summary.Runs, c.Points, c.Recoveries,
			c.RecoverAgreements, c.LaneAgreements, len(c.Shapes))
	}
	base := v.Reports[0]
	for i := 1; i < len(v.Reports); i++ {
		fmt.Fprintf(&b, "\nFrom %s to %s:\n", v.Releases[0].Version, v.Releases[i].Version)
		if d := pointDelta(base, v.Reports[i]); d != "" {
			fmt.Fprintf(&b, "- crash points: %s\n", d)
		}
		groups := groupChanges(base, v.Reports[i])
		if len(groups) == 0 {
			b.WriteString("- every recovery transaction is the same\n")
		}
		for _, g := range groups {
			fmt.Fprintf(&b, "- %d recovery transactions differ in %s\n", len(g.points), strings.Join(g.paths, ", "))
			for _, p := range g.paths {
				why := explanations[p]
				if why == "" {
					why = "UNEXPLAINED"
				}
				fmt.Fprintf(&b, "  - `%s`: %s\n", p, why)
			}
			if strings.Contains(strings.Join(g.points, ""), ":") {
				for _, p := range g.points {
					fmt.Fprintf(&b, "  - %s\n", p)
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pointDelta says how the crash points of two releases' runs differ ("" if
// every run has the same number).
func pointDelta(a, b Report) string {
	count := func(r Report) map[string]int {
		m := map[string]int{}
		for _, p := range r.Points {
			m[p.Run] = p.Of
		}
		return m
	}
	ca, cb := count(a), count(b)
	var runs []string
	for run := range ca {
		runs = append(runs, run)
	}
	sort.Strings(runs)
	var d []string
	for _, run := range runs {
		if ca[run] != cb[run] {
			d = append(d, fmt.Sprintf("%s %d → %d commits", run, ca[run], cb[run]))
		}
	}
	return strings.Join(d, ", ")
}

// The version table's section of a document, between two marker lines
// that `frameproof pi-recovery-sweep --versions ... --write FILE` owns. (Not
// props/bench's ReplaceSection: its markers carry a bench family and its
// options, which this table has none of.)
const (
	SectionBegin = "<!-- pi-recovery-versions: written by `frameproof pi-recovery-sweep --versions ... --write`, do not edit -->"
	SectionEnd   = "<!-- /pi-recovery-versions -->"
)

// ReplaceSection returns doc with its version-table section replaced by
// table (markers added), or with the section appended when doc has none.
func ReplaceSection(doc, table []byte) ([]byte, error) {
	section := SectionBegin + "\n\n" + string(table) + "\n" + SectionEnd + "\n"
	s := string(doc)
	begin := strings.Index(s, SectionBegin)
	if begin < 0 {
		if len(s) > 0 && !strings.HasSuffix(s, "\n\n") {
			s = strings.TrimRight(s, "\n") + "\n\n"
		}
		return []byte(s + section), nil
	}
	if strings.Contains(s[begin+len(SectionBegin):], SectionBegin) {
		return nil, fmt.Errorf("pirecovery: two version-table sections")
	}
	end := strings.Index(s[begin:], SectionEnd)
	if end < 0 {
		return nil, fmt.Errorf("pirecovery: the version-table section has no end marker")
	}
	end += begin + len(SectionEnd)
	if end < len(s) && s[end] == '\n' {
		end++
	}
	return []byte(s[:begin] + section + s[end:]), nil
}
