package main

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/trace"
)

// The HTML report of one reproduced run: verdict and provenance, which
// check failed at which step, the injected faults, the race orders taken,
// porcupine's visualization of the client-visible history (fault
// annotations drawn in by sim/linz), the trace as a per-actor timeline with
// the failing step marked, and the JSONL trace. It is one self-contained file, so CI can keep it as an
// artifact: the visualization is embedded as an iframe srcdoc.

// htmlTraceLimit caps the trace embedded in the page; the full trace is in
// the linked JSONL file.
const htmlTraceLimit = 4 << 20

type htmlReportInput struct {
	Target    target
	Outcome   campaign.Outcome
	RerunHash string // "" when the determinism check failed or was not run
	TraceFile string // the JSONL trace file to link ("" = none)
	Model     porcupine.Model
}

type htmlReportView struct {
	Title, What, Verdict, Message string
	Kind                          campaign.FailureKind
	Failed                        bool
	Steps                         int
	TraceHash, RerunHash          string
	Faults                        []string
	Races                         [][2]string
	Failure                       string // "check K failed at step N (actor A)" ("" = passed)
	FailStep                      int64  // -1 when no step is known
	Linz                          string // porcupine's page for the iframe srcdoc ("" = none)
	LinzNote                      string
	LinzOkButFail                 bool // porcupine Ok while the verdict is FAIL
	TraceFile                     string
	Timeline                      timelineView
	Trace                         []traceLine
	TraceNote                     string
	Command                       string
}

var htmlReportTemplate = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:110em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.fail{color:#b00;font-weight:bold}.pass{color:#070;font-weight:bold}
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:40em;font-size:85%;white-space:pre-wrap;overflow-wrap:anywhere}
iframe{width:100%;height:42em;border:1px solid #ccc}
code{background:#f0f0f0;padding:0 .2em;overflow-wrap:anywhere}
.failure{border-left:.4em solid #b00;background:#fff4f4;padding:.5em 1em}
.timeline{overflow:auto;max-height:48em;border:1px solid #ccc}
.timeline table{font-size:80%;width:max-content}
.timeline th{position:sticky;top:0;background:#eee;white-space:nowrap}
.timeline td{white-space:pre;overflow-wrap:normal}
.timeline td.step{white-space:nowrap;min-width:0}
tr.failstep td{background:#fdd}
pre span.failstep{background:#fdd;display:block}
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.What}}</p>
{{if .Failure}}<p class="failure">{{.Failure}}{{if ge .FailStep 0}} (<a href="#step-{{.FailStep}}">marked in the timeline</a>){{end}}</p>{{end}}
<table>
<tr><th>verdict</th><td class="{{if .Failed}}fail{{else}}pass{{end}}">{{.Verdict}}</td></tr>
{{if .Kind}}<tr><th>failed check</th><td>{{.Kind}}</td></tr>{{end}}
{{if ge .FailStep 0}}<tr><th>failed at step</th><td>{{.FailStep}}</td></tr>{{end}}
{{if .Message}}<tr><th>message</th><td><pre>{{.Message}}</pre></td></tr>{{end}}
<tr><th>steps</th><td>{{.Steps}}</td></tr>
<tr><th>trace hash</th><td><code>{{.TraceHash}}</code></td></tr>
<tr><th>determinism re-run</th><td>{{if .RerunHash}}<code>{{.RerunHash}}</code>{{if eq .RerunHash .TraceHash}} (agrees){{else}} <span class="fail">(DIFFERS)</span>{{end}}{{else}}not run{{end}}</td></tr>
<tr><th>reproduce</th><td><code>{{.Command}}</code></td></tr>
</table>
<h2>Injected faults ({{len .Faults}})</h2>
{{if .Faults}}<ol>{{range .Faults}}<li>{{.}}</li>{{end}}</ol>{{else}}<p>none</p>{{end}}
<h2>Race orders taken</h2>
{{if .Races}}<table><tr><th>row</th><th>order</th></tr>{{range .Races}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>{{end}}</table>{{else}}<p>no race row was exercised</p>{{end}}
<h2>Linearizability (porcupine)</h2>
{{if .LinzNote}}<p>{{.LinzNote}}</p>{{end}}
{{if .LinzOkButFail}}<p class="why-ok">Why Ok with a FAIL verdict: porcupine only checks that the client-visible operations of the race table are linearizable against the model; a failed invariant, a model mismatch or a liveness failure is found by a different check, so porcupine can be Ok while the verdict is FAIL.</p>{{end}}
{{if .Linz}}<iframe title="porcupine visualization" srcdoc="{{.Linz}}"></iframe>{{end}}
<h2>Timeline</h2>
{{if .Timeline.Rows}}<p>One column per actor (name @process), one row per scheduler step; a cell lists what the actor did in that step.{{if ge .FailStep 0}} The failing step is highlighted.{{end}}</p>
{{if .Timeline.Note}}<p>{{.Timeline.Note}}</p>{{end}}
<div class="timeline"><table>
<tr><th>step</th><th>time</th>{{range .Timeline.Actors}}<th>{{.}}</th>{{end}}</tr>
{{range .Timeline.Rows}}<tr id="step-{{.Step}}"{{if .Fail}} class="failstep"{{end}}><td class="step">{{.Step}}</td><td class="step">{{.T}}</td>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>{{else}}<p>no trace records</p>{{end}}
<h2>Trace</h2>
{{if .TraceFile}}<p>full JSONL trace: <a href="{{.TraceFile}}">{{.TraceFile}}</a></p>{{end}}
{{if .TraceNote}}<p>{{.TraceNote}}</p>{{end}}
{{if .Trace}}<pre>{{range .Trace}}{{if .Fail}}<span class="failstep">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{end}}</pre>{{end}}
</body></html>
`))

// writeHTMLReport renders the report to path.
func writeHTMLReport(path string, in htmlReportInput) error {
	o, t := in.Outcome, in.Target
	v := htmlReportView{
		Title:   fmt.Sprintf("frameproof repro: %s/%s", t.scenario.Name, t.backend),
		What:    t.what(),
		Verdict: "PASS", Failed: o.Failed, Kind: o.Kind, Message: o.Message,
		Steps: o.Steps, TraceHash: o.TraceHash, RerunHash: in.RerunHash, Faults: o.Faults,
		Command: t.command(),
	}
	if o.Failed {
		v.Verdict = "FAIL"
	}
	for _, r := range o.RacesTaken() {
		v.Races = append(v.Races, [2]string{r[0], strings.Join(r[1:], " + ")})
	}
	var linzOk bool
	v.Linz, v.LinzNote, linzOk = linzSection(o, in.Model, filepath.Dir(path))
	v.LinzOkButFail = linzOk && o.Failed
	if in.TraceFile != "" {
		v.TraceFile = relativeTo(filepath.Dir(path), in.TraceFile)
	}
	v.FailStep = -1
	var actor string // who reported the failure ("" = unknown)
	if o.Trace != nil {
		actor = addTrace(&v, o.Trace)
	} else {
		v.TraceNote = "the scenario kept no trace"
	}
	if o.Failed {
		v.Failure = failureSentence(o, v.FailStep, actor)
	}
	var out bytes.Buffer
	if err := htmlReportTemplate.Execute(&out, v); err != nil {
		return fmt.Errorf("html report: render: %w", err)
	}
	if err := writeOutput(path, out.Bytes()); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// addTrace fills the timeline, the embedded JSONL and the failing step
// from the trace, and returns the actor that reported the failure.
func addTrace(v *htmlReportView, t *trace.Trace) string {
	recs, err := t.Records()
	if err != nil {
		v.TraceNote = "trace unavailable: " + err.Error()
		return ""
	}
	f, found := findFailure(recs)
	if found {
		v.FailStep = f.Step
	}
	v.Timeline = buildTimeline(recs, v.FailStep)
	var b bytes.Buffer
	if err := t.WriteJSONL(&b); err != nil {
		v.TraceNote = "trace unavailable: " + err.Error()
		return f.Actor
	}
	text := b.String()
	if len(text) > htmlTraceLimit {
		text = text[:htmlTraceLimit]
		v.TraceNote = fmt.Sprintf("embedded trace cut at %d of %d bytes; the linked JSONL file has all of it", htmlTraceLimit, b.Len())
	}
	v.Trace = markTrace(text)
	return f.Actor
}

// failureSentence says which check failed and where, in one line.
func failureSentence(o campaign.Outcome, step int64, actor string) string {
	kind := string(o.Kind)
	if kind == "" {
		kind = "unknown"
	}
	s := fmt.Sprintf("The %s check failed", kind)
	switch {
	case step >= 0 && actor != "":
		s += fmt.Sprintf(" at step %d (reported by %s)", step, actor)
	case step >= 0:
		s += fmt.Sprintf(" at step %d", step)
	default:
		s += fmt.Sprintf(" after %d steps (the trace records no failure step)", o.Steps)
	}
	return s + ": " + firstLine(o.Message)
}

// linzSection checks the recorded history against the model and renders
// porcupine's visualization, returning the page, a note and whether
// porcupine found the history linearizable.
func linzSection(o campaign.Outcome, model porcupine.Model, dir string) (string, string, bool) {
	if o.Linz == nil {
		return "", "the scenario recorded no client-visible history", false
	}
	if model.Init == nil {
		return "", "no linearizability model is available for this suite", false
	}
	if len(o.Linz.Operations()) == 0 {
		return "", "the run recorded no client-visible operations", false
	}
	res, info := o.Linz.Check(model, time.Minute)
	ok := res == porcupine.Ok
	tmp, err := os.CreateTemp(dir, ".frameproof-linz-*.html")
	if err != nil {
		return "", "visualization unavailable: " + err.Error(), ok
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name)
	if err := o.Linz.Visualize(model, info, name); err != nil {
		return "", "visualization unavailable: " + err.Error(), ok
	}
	page, err := os.ReadFile(name)
	if err != nil {
		return "", "visualization unavailable: " + err.Error(), ok
	}
	note := fmt.Sprintf("porcupine result: %s over %d operations", res, len(o.Linz.Operations()))
	// A plain string: html/template entity-escapes it inside the srcdoc
	// attribute, and the browser unescapes it into the framed page. (A
	// template.HTML value would have its tags stripped there.)
	return string(page), note, ok
}

func relativeTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	if abs, err := filepath.Abs(path); err == nil {
		return "file://" + abs
	}
	return path
}
