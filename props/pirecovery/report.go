package pirecovery

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Report is a whole sweep compared.
type Report struct {
	Summary  Summary
	Verdicts []Verdict
	// Points are the script's points, in order, for corpus entries.
	Points []Point
}

// Sweep runs the script (in scriptDir) against the release rel, whose peer
// folder opts.PiDir names ("" for 0.85.1's, the script's own), and
// compares every point under rel's options.
func Sweep(ctx context.Context, scriptDir string, rel Release, opts Options) (Report, error) {
	pts, sum, err := RunScript(ctx, scriptDir, opts)
	if err != nil {
		return Report{}, err
	}
	if sum.Version != rel.Version {
		return Report{}, fmt.Errorf("%w: the sweep ran pi-agent-core %s, not %s", ErrEnvironment, sum.Version, rel.Version)
	}
	return CompareAll(pts, sum, rel)
}

// CompareAll compares every point under rel's options.
func CompareAll(pts []Point, sum Summary, rel Release) (Report, error) {
	scratch, err := os.MkdirTemp("", "frameproof-pirecovery-")
	if err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	defer os.RemoveAll(scratch)
	r := Report{Summary: sum, Points: pts}
	for _, p := range pts {
		v, err := Compare(p, scratch, rel)
		if err != nil {
			return Report{}, err
		}
		r.Verdicts = append(r.Verdicts, v)
	}
	return r, nil
}

// Counts are a report's figures.
type Counts struct {
	Points, Agreements, RecoverAgreements, LaneAgreements, Recoveries int
	Shapes                                                            []Shape
}

// Counts tallies the report; Shapes are the distinct recovery shapes met,
// sorted.
func (r Report) Counts() Counts {
	c := Counts{Points: len(r.Verdicts)}
	seen := map[Shape]bool{}
	for _, v := range r.Verdicts {
		if v.Agrees() {
			c.Agreements++
		}
		if v.Recover.Agree {
			c.RecoverAgreements++
		}
		if v.Lane.Agree {
			c.LaneAgreements++
		}
		if v.Shape != (Shape{}) {
			c.Recoveries++
			if !seen[v.Shape] {
				seen[v.Shape] = true
				c.Shapes = append(c.Shapes, v.Shape)
			}
		}
	}
	sort.Slice(c.Shapes, func(i, j int) bool { return c.Shapes[i].String() < c.Shapes[j].String() })
	return c
}

// Write prints the report: the figures, the shapes, and each disagreement
// with its run, k and diff.
func (r Report) Write(w io.Writer) error {
	c := r.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "pi-agent-core %s: %d runs, %d crash points, %d with a pi recovery transaction\n", r.Summary.Version, r.Summary.Runs, c.Points, c.Recoveries)
	fmt.Fprintf(&b, "agreements: %d of %d (frameproof recover: %d, impl/lane reopen: %d)\n", c.Agreements, c.Points, c.RecoverAgreements, c.LaneAgreements)
	fmt.Fprintf(&b, "distinct recovery shapes: %d\n", len(c.Shapes))
	for _, s := range c.Shapes {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	for _, v := range r.Verdicts {
		if v.Agrees() {
			continue
		}
		fmt.Fprintf(&b, "DISAGREE run %s k=%d/%d (%s)\n", v.Run, v.K, v.Of, v.Shape)
		for _, side := range []struct {
			name string
			a    Agreement
		}{{"frameproof recover", v.Recover}, {"impl/lane", v.Lane}} {
			if !side.a.Agree {
				fmt.Fprintf(&b, "  %s vs pi:\n", side.name)
				for _, l := range strings.Split(strings.TrimSuffix(side.a.Diff, "\n"), "\n") {
					fmt.Fprintf(&b, "    %s\n", l)
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
