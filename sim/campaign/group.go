package campaign

import (
	"regexp"
	"strings"
)

// FailureGroup is the failures that share a kind and a message (digits
// aside: "value 8 at op 3" and "value 9 at op 1" are one problem).
type FailureGroup struct {
	Kind    FailureKind
	Message string            // the first line of the first member's
	Members []ReportedFailure // in campaign order; the first is the one to show
}

var digitRun = regexp.MustCompile(`[0-9]+`)

// GroupFailures groups failures by kind and first message line with digits
// masked, groups in order of their first member.
func GroupFailures(fs []ReportedFailure) []FailureGroup {
	var groups []FailureGroup
	index := map[string]int{}
	for _, f := range fs {
		line, _, _ := strings.Cut(f.Message, "\n")
		key := string(f.Kind) + "\x00" + digitRun.ReplaceAllString(line, "N")
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, FailureGroup{Kind: f.Kind, Message: line})
		}
		groups[i].Members = append(groups[i].Members, f)
	}
	return groups
}
