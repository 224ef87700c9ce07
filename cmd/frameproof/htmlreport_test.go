package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/trace"
)

// sampleTrace is a small run of two actors and the scheduler; when failAt
// >= 0 the checker reports a failure at that step.
func sampleTrace(failAt int64) *trace.Trace {
	tr := trace.New()
	tr.Add(0, 0, "", "", "spawn", trace.F("child", "writer#1"))
	tr.Add(1, 1000, "lane@1", "writer#1", "send", trace.F("frame", 3), trace.F("text", "hello"))
	tr.Add(1, 1000, "lane@1", "writer#1", "wait", trace.F("future", "commit#1"))
	tr.Add(2, 2000, "lane@1", "checker#2", "check")
	if failAt >= 0 {
		tr.Add(failAt, 2000, "lane@1", "checker#2", "failure", trace.F("kind", "invariant"), trace.F("message", "bad "+strings.Repeat("é", 100)))
	}
	tr.Add(3, 3000, "lane@1", "writer#1", "resolve", trace.F("future", "commit#1"))
	return tr
}

func renderReport(t *testing.T, o campaign.Outcome) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.html")
	in := htmlReportInput{Target: target{scenario: campaign.Scenario{Name: "coin"}, backend: "memory", seed: 7}, Outcome: o,
		Model: porcupine.Model{}}
	require.NoError(t, writeHTMLReport(path, in))
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(page)
}

// A failing run's report names the check and its step, marks that step in
// the per-actor timeline and in the embedded trace, and wraps long text.
func TestHTMLReportMarksTheFailingStep(t *testing.T) {
	long := strings.Repeat("x", 400)
	page := renderReport(t, campaign.Outcome{Failed: true, Kind: campaign.KindInvariant, Message: "value too big " + long + "\nsecond line",
		Steps: 3, Trace: sampleTrace(2)})

	assert.Contains(t, page, `<p class="failure">The invariant check failed at step 2 (reported by checker#2 @lane@1): value too big `+long+` (<a href="#step-2">`)
	assert.Contains(t, page, "<tr><th>failed at step</th><td>2</td></tr>")
	assert.Contains(t, page, "<tr><th>step</th><th>time</th><th>scheduler</th><th>writer#1 @lane@1</th><th>checker#2 @lane@1</th></tr>",
		"one column per actor, in order of first appearance")
	rows := regexp.MustCompile(`<tr id="step-(\d+)"( class="failstep")?>`).FindAllStringSubmatch(page, -1)
	require.Len(t, rows, 4, "one row per step")
	for _, r := range rows {
		assert.Equal(t, r[1] == "2", r[2] != "", "only step 2 is marked: %q", r[0])
	}
	assert.Contains(t, page, `<td class="step">1</td><td class="step">0.001 ms</td><td></td><td>send frame=3 text=hello
wait future=commit#1</td><td></td></tr>`, "a cell lists the actor's records of the step, kv in trace order")
	assert.Contains(t, page, "failure kind=invariant message=bad "+strings.Repeat("é", 55)+"…</td>", "long values are cut in the timeline")
	assert.Regexp(t, `<span class="failstep">\{&#34;step&#34;:2,[^\n]*&#34;act&#34;:&#34;failure&#34;`, page)
	assert.Equal(t, 1, strings.Count(page, `<span class="failstep">`))
	for _, css := range []string{"white-space:pre-wrap", "overflow-wrap:anywhere"} {
		assert.Contains(t, page, css, "long messages wrap")
	}
	assert.NotContains(t, page, "Why Ok with a FAIL verdict", "no porcupine history, nothing to explain")
}

// A passing run has no failure line and no marked step.
func TestHTMLReportPassHasNoMark(t *testing.T) {
	page := renderReport(t, campaign.Outcome{Steps: 3, Trace: sampleTrace(-1)})
	assert.NotContains(t, page, `class="failure"`)
	assert.NotContains(t, page, "failstep\"")
	assert.NotContains(t, page, "failed at step")
	assert.Contains(t, page, `<tr id="step-3">`)
}

// A failure the trace does not record still says which check failed.
func TestHTMLReportFailureWithoutTraceRecord(t *testing.T) {
	page := renderReport(t, campaign.Outcome{Failed: true, Kind: campaign.KindLiveness, Message: "stuck", Steps: 3, Trace: sampleTrace(-1)})
	assert.Contains(t, page, `<p class="failure">The liveness check failed after 3 steps (the trace records no failure step): stuck</p>`)
	assert.NotContains(t, page, "failstep\"")
}

// The timeline keeps the last steps when a run is long.
func TestHTMLTimelineKeepsTheLastSteps(t *testing.T) {
	tr := trace.New()
	for s := range int64(htmlTimelineLimit + 5) {
		tr.Add(s, s, "p", "a#1", "yield")
	}
	recs, err := tr.Records()
	require.NoError(t, err)
	v := buildTimeline(recs, htmlTimelineLimit+4)
	require.Len(t, v.Rows, htmlTimelineLimit)
	assert.Equal(t, int64(5), v.Rows[0].Step)
	assert.True(t, v.Rows[len(v.Rows)-1].Fail)
	assert.Contains(t, v.Note, "last 2000 of 2005 steps")
}
