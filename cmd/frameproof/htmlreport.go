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
)

// The HTML report of one reproduced run: verdict and provenance, the
// injected faults, the race orders taken, porcupine's visualization of the
// client-visible history (fault annotations drawn in by sim/linz) and the
// JSONL trace. It is one self-contained file, so CI can keep it as an
// artifact: the visualization is embedded as an iframe srcdoc.

// htmlTraceLimit caps the trace embedded in the page; the full trace is in
// the linked JSONL file.
const htmlTraceLimit = 4 << 20

type htmlReportInput struct {
	Target    target
	Outcome   simOutcome
	RerunHash string // "" when the determinism check failed or was not run
	TraceFile string // the JSONL trace file to link ("" = none)
	Model     porcupine.Model
}

type htmlReportView struct {
	Title, What, Verdict, Kind, Message string
	Failed                              bool
	Steps                               int
	TraceHash, RerunHash                string
	Faults                              []string
	Races                               [][2]string
	Linz                                string // porcupine's page for the iframe srcdoc ("" = none)
	LinzNote                            string
	TraceFile                           string
	Trace                               string
	TraceNote                           string
	Command                             string
}

var htmlReportTemplate = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:110em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
.fail{color:#b00;font-weight:bold}.pass{color:#070;font-weight:bold}
pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:40em;font-size:85%}
iframe{width:100%;height:42em;border:1px solid #ccc}
code{background:#f0f0f0;padding:0 .2em}
</style></head><body>
<h1>{{.Title}}</h1>
<p>{{.What}}</p>
<table>
<tr><th>verdict</th><td class="{{if .Failed}}fail{{else}}pass{{end}}">{{.Verdict}}</td></tr>
{{if .Kind}}<tr><th>failure kind</th><td>{{.Kind}}</td></tr>{{end}}
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
{{if .Linz}}<iframe title="porcupine visualization" srcdoc="{{.Linz}}"></iframe>{{end}}
<h2>Trace</h2>
{{if .TraceFile}}<p>full JSONL trace: <a href="{{.TraceFile}}">{{.TraceFile}}</a></p>{{end}}
{{if .TraceNote}}<p>{{.TraceNote}}</p>{{end}}
{{if .Trace}}<pre>{{.Trace}}</pre>{{end}}
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
	for _, r := range o.racesTaken() {
		v.Races = append(v.Races, [2]string{r[0], strings.Join(r[1:], " + ")})
	}
	v.Linz, v.LinzNote = linzSection(o, in.Model, filepath.Dir(path))
	if in.TraceFile != "" {
		v.TraceFile = relativeTo(filepath.Dir(path), in.TraceFile)
	}
	if o.Trace != nil {
		var b bytes.Buffer
		if err := o.Trace.WriteJSONL(&b); err != nil {
			v.TraceNote = "trace unavailable: " + err.Error()
		} else if b.Len() > htmlTraceLimit {
			v.Trace = string(b.Bytes()[:htmlTraceLimit])
			v.TraceNote = fmt.Sprintf("embedded trace cut at %d of %d bytes; the linked JSONL file has all of it", htmlTraceLimit, b.Len())
		} else {
			v.Trace = b.String()
		}
	} else {
		v.TraceNote = "the scenario kept no trace"
	}
	var out bytes.Buffer
	if err := htmlReportTemplate.Execute(&out, v); err != nil {
		return fmt.Errorf("html report: render: %w", err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// linzSection checks the recorded history against the model and renders
// porcupine's visualization, returning the page and a note.
func linzSection(o simOutcome, model porcupine.Model, dir string) (string, string) {
	if o.Linz == nil {
		return "", "the scenario recorded no client-visible history"
	}
	if model.Init == nil {
		return "", "no linearizability model is available for this suite"
	}
	if len(o.Linz.Operations()) == 0 {
		return "", "the run recorded no client-visible operations"
	}
	res, info := o.Linz.Check(model, time.Minute)
	tmp, err := os.CreateTemp(dir, ".frameproof-linz-*.html")
	if err != nil {
		return "", "visualization unavailable: " + err.Error()
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name)
	if err := o.Linz.Visualize(model, info, name); err != nil {
		return "", "visualization unavailable: " + err.Error()
	}
	page, err := os.ReadFile(name)
	if err != nil {
		return "", "visualization unavailable: " + err.Error()
	}
	note := fmt.Sprintf("porcupine result: %s over %d operations", res, len(o.Linz.Operations()))
	// A plain string: html/template entity-escapes it inside the srcdoc
	// attribute, and the browser unescapes it into the framed page. (A
	// template.HTML value would have its tags stripped there.)
	return string(page), note
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
