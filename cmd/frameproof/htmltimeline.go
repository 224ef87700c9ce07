package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/sim/trace"
)

// The trace as a person reads it: one column per actor, one row per step,
// and the step where a check failed marked. Derived from the trace records
// only, so it shows what the JSONL file holds.

// htmlTimelineLimit caps the rows (steps) of the timeline; a failure is
// found at the end of a run, so the last steps are the ones kept.
const htmlTimelineLimit = 2000

// traceFailure is where the trace's "failure" record puts the failed
// check: its step and the actor that reported it.
type traceFailure struct {
	Step  int64
	Actor string
}

type timelineView struct {
	Actors []string // column headers, in order of first appearance
	Rows   []timelineRow
	Note   string // why rows are missing ("" = all shown)
}

type timelineRow struct {
	Step  int64
	T     string   // virtual time
	Cells []string // one per actor: its records of this step, one per line
	Fail  bool     // the failing check's step
}

// traceLine is one line of the embedded JSONL, marked when it records the
// failure.
type traceLine struct {
	Text string
	Fail bool
}

// findFailure returns the trace's first failure record, if any.
func findFailure(recs []trace.Record) (traceFailure, bool) {
	for _, r := range recs {
		if r.Act == "failure" {
			return traceFailure{Step: r.Step, Actor: actorName(r)}, true
		}
	}
	return traceFailure{}, false
}

// actorName is the column of a record: the actor and its process.
func actorName(r trace.Record) string {
	if r.Actor == "" {
		return "scheduler"
	}
	return r.Actor + " @" + r.Proc
}

// buildTimeline lays recs out by step and actor; failStep (< 0: none) is
// marked.
func buildTimeline(recs []trace.Record, failStep int64) timelineView {
	var v timelineView
	col := map[string]int{}
	var steps []int64
	byStep := map[int64][]trace.Record{}
	for _, r := range recs {
		name := actorName(r)
		if _, ok := col[name]; !ok {
			col[name] = len(v.Actors)
			v.Actors = append(v.Actors, name)
		}
		if _, ok := byStep[r.Step]; !ok {
			steps = append(steps, r.Step)
		}
		byStep[r.Step] = append(byStep[r.Step], r)
	}
	if len(steps) > htmlTimelineLimit {
		v.Note = fmt.Sprintf("timeline shows the last %d of %d steps; the trace below and the JSONL file have all of them", htmlTimelineLimit, len(steps))
		steps = steps[len(steps)-htmlTimelineLimit:]
	}
	for _, s := range steps {
		rs := byStep[s]
		row := timelineRow{Step: s, T: virtualTime(rs[0].T), Cells: make([]string, len(v.Actors)), Fail: s == failStep}
		for _, r := range rs {
			c := col[actorName(r)]
			row.Cells[c] = strings.TrimPrefix(row.Cells[c]+"\n"+describe(r), "\n")
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// describe is one record as "act k=v k=v", keys in the trace's order.
func describe(r trace.Record) string {
	if len(r.KV) == 0 {
		return r.Act
	}
	var b strings.Builder
	b.WriteString(r.Act)
	dec := json.NewDecoder(bytes.NewReader(r.KV))
	if _, err := dec.Token(); err != nil { // the opening brace
		return r.Act + " " + string(r.KV)
	}
	for dec.More() {
		key, err := dec.Token()
		var val json.RawMessage
		if err == nil {
			err = dec.Decode(&val)
		}
		if err != nil {
			return r.Act + " " + string(r.KV)
		}
		var s string
		if json.Unmarshal(val, &s) != nil {
			s = string(val) // numbers, bools, objects as written
		}
		fmt.Fprintf(&b, " %v=%s", key, clip(s))
	}
	return b.String()
}

// timelineValueLimit keeps a timeline cell readable: a longer value is cut
// (the message row and the trace below have it whole).
const timelineValueLimit = 60

// clip cuts s to timelineValueLimit runes, marking the cut.
func clip(s string) string {
	r := []rune(s)
	if len(r) <= timelineValueLimit {
		return s
	}
	return string(r[:timelineValueLimit-1]) + "…"
}

// virtualTime prints nanoseconds of simulated time as milliseconds.
func virtualTime(ns int64) string {
	return fmt.Sprintf("%.3f ms", float64(ns)/1e6)
}

// markTrace splits the JSONL into lines, marking those of the failure
// record.
func markTrace(jsonl string) []traceLine {
	lines := strings.SplitAfter(jsonl, "\n")
	out := make([]traceLine, 0, len(lines))
	for _, l := range lines {
		if l == "" {
			continue
		}
		out = append(out, traceLine{Text: l, Fail: strings.Contains(l, `"act":"failure"`)})
	}
	return out
}
