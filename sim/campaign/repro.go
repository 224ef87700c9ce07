package campaign

import (
	"fmt"
	"strings"
)

// Repro returns the `frameproof repro` command that re-runs seed: the one
// builder of every reproduction line the campaign, the CLI and the tests
// print. bug is a comma-separated list ("" = none). The CLI needs the
// scenario and the backend, so a line built without them does not run.
func Repro(seed uint64, scenario, backend, bug string) string {
	return reproLine(fmt.Sprintf("frameproof repro %d", seed), scenario, backend, bug)
}

// ReproTape returns the `frameproof repro` command that replays the tape
// file at path.
func ReproTape(path, scenario, backend, bug string) string {
	return reproLine("frameproof repro --tape "+path, scenario, backend, bug)
}

func reproLine(head, scenario, backend, bug string) string {
	var b strings.Builder
	b.WriteString(head)
	if scenario != "" {
		fmt.Fprintf(&b, " --scenario %s", scenario)
	}
	if backend != "" {
		fmt.Fprintf(&b, " --backend %s", backend)
	}
	if bug != "" {
		fmt.Fprintf(&b, " --bug %s", bug)
	}
	return b.String()
}
