package mutate

import (
	"fmt"
	"io"
	"strings"
)

// Render prints the per-package table, then every survivor's diff.
func Render(w io.Writer, reports []PackageReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s %9s %7s %6s %8s %7s %10s %6s\n", "package", "generated", "sampled", "killed", "timeout", "survived", "not-viable", "score")
	for _, r := range reports {
		score := "-"
		if s := r.Score(); s >= 0 {
			score = fmt.Sprintf("%.0f%%", s)
		}
		fmt.Fprintf(&b, "%-20s %9d %7d %6d %8d %7d %10d %6s\n", r.Pkg, r.Generated, len(r.Results),
			r.Count(Killed), r.Count(TimedOut), r.Count(Survived), r.Count(NotViable), score)
	}
	for _, r := range reports {
		for _, res := range r.Results {
			if res.Status == Survived {
				fmt.Fprintf(&b, "\nsurvived %s\n%s", res.Mutant.ID(), res.Diff)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
