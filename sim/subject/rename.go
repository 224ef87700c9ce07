package subject

import (
	"fmt"
	"regexp"
)

// renamer renames ids and times by first appearance, so two runs that did
// the same things print the same trace whatever ids and clock values their
// subjects minted.
type renamer struct {
	ids   map[string]string
	times map[string]string
}

var (
	idPattern   = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timePattern = regexp.MustCompile(`"(startedAt|endedAt|timestamp|requestedAt|notBefore)":[0-9]+`)
)

func (r *renamer) rename(s string) string {
	if r.ids == nil {
		r.ids, r.times = map[string]string{}, map[string]string{}
	}
	s = idPattern.ReplaceAllStringFunc(s, func(id string) string {
		n, ok := r.ids[id]
		if !ok {
			n = fmt.Sprintf("id%d", len(r.ids)+1)
			r.ids[id] = n
		}
		return n
	})
	return timePattern.ReplaceAllStringFunc(s, func(t string) string {
		m := timePattern.FindStringSubmatch(t)
		v := t[len(m[1])+3:]
		n, ok := r.times[v]
		if !ok {
			n = fmt.Sprintf("t%d", len(r.times)+1)
			r.times[v] = n
		}
		return `"` + m[1] + `":` + n
	})
}
