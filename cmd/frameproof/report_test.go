package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateReportGolden = flag.Bool("update-report-golden", false, "rewrite cmd/frameproof/testdata/report golden files")

func sampleReport() *Report {
	r := &Report{Schema: ReportSchema, Command: "conform", CorpusVersion: "codec/1+sha256:0123456789abcdef",
		Implementation: &ReportImplementation{Name: "impl", Version: "9.9", Protocol: "frameproof-stdio/1", Command: "impl --serve"}}
	r.add("encode", ReportCase{Name: "encode/a", Status: statusPass})
	r.add("encode", ReportCase{Name: "encode/b", Status: statusFail, Detail: "frame 1 differs at byte 3:\n  want …\"x<&>\"\n  got  …\"y\""})
	r.add("reduce", ReportCase{Name: "reduce/a", Status: statusError, Detail: "peer: reduce: protocol error: unsupported"})
	r.add("reduce", ReportCase{Name: "reduce/b", Status: statusSkipped, Detail: "not run: the implementation failed at reduce/a"})
	r.finish()
	return r
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "report", name)
	if *updateReportGolden {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/frameproof -update-report-golden")
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s (-want +got):\n%s", name, d)
	}
}

func TestReportFinish(t *testing.T) {
	r := sampleReport()
	assert.Equal(t, "fail", r.Verdict)
	assert.Equal(t, exitFail, r.ExitCode)
	assert.Equal(t, [5]int{4, 1, 1, 1, 1}, [5]int{r.Tests, r.Passed, r.Failed, r.Errors, r.Skipped})
	assert.Equal(t, [2]int{1, 1}, [2]int{r.Suites[0].Passed, r.Suites[0].Failed})

	inconclusive := &Report{}
	inconclusive.add("s", ReportCase{Name: "x", Status: statusPass})
	inconclusive.add("s", ReportCase{Name: "y", Status: statusError})
	assert.Equal(t, exitInconclusive, inconclusive.finish())
	assert.Equal(t, exitInconclusive, (&Report{}).finish(), "no tests is not a pass")
	noted := &Report{Note: "peer unavailable"}
	noted.add("s", ReportCase{Name: "x", Status: statusPass})
	assert.Equal(t, exitInconclusive, noted.finish())
	pass := &Report{}
	pass.add("s", ReportCase{Name: "x", Status: statusPass})
	assert.Equal(t, exitPass, pass.finish())
	assert.Equal(t, "pass", pass.Verdict)
}

// TestReportJSONGolden: the JSON summary is stable and decodes, with no
// unknown fields, back into the documented struct.
func TestReportJSONGolden(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	require.NoError(t, r.writeJSON(&buf))
	checkGolden(t, "sample.json", buf.Bytes())
	var back Report
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&back))
	if d := cmp.Diff(*r, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// TestReportJUnitGolden: the JUnit XML is stable and decodes with
// encoding/xml into testsuites > testsuite > testcase > failure|error|skipped.
func TestReportJUnitGolden(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	require.NoError(t, r.writeJUnit(&buf))
	checkGolden(t, "sample.junit.xml", buf.Bytes())

	// Decode with independent minimal types, as a CI reader would.
	var x struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Errors   int      `xml:"errors,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Props    []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error   *struct{} `xml:"error"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &x))
	assert.Equal(t, "frameproof conform", x.Name)
	assert.Equal(t, [3]int{4, 1, 1}, [3]int{x.Tests, x.Failures, x.Errors})
	require.Len(t, x.Suites, 2)
	assert.Equal(t, "frameproof.conform.encode", x.Suites[0].Name)
	assert.Equal(t, "codec/1+sha256:0123456789abcdef", x.Suites[0].Props[1].Value)
	f := x.Suites[0].Cases[1].Failure
	require.NotNil(t, f)
	assert.Equal(t, "frame 1 differs at byte 3:", f.Message)
	assert.Contains(t, f.Text, `"x<&>"`, "detail survives XML escaping")
	assert.Nil(t, x.Suites[0].Cases[0].Failure)
	assert.NotNil(t, x.Suites[1].Cases[0].Error)
	assert.NotNil(t, x.Suites[1].Cases[1].Skipped)
}

// An unwritable --junit file is an I/O error found before anything runs,
// for every command that writes JUnit.
func TestUnwritableJUnitIsAnIOError(t *testing.T) {
	bad := t.TempDir() + "/missing-dir/report.xml"
	for _, args := range [][]string{
		{"corpus", "run", "--family", "jsonl", "--junit", bad},
		{"conform", "--self", "--ops", "parse", "--junit", bad},
	} {
		code, stdout, stderr := run(args...)
		assert.Equal(t, exitIO, code, args)
		assert.Empty(t, stdout, args)
		assert.Contains(t, stderr, "--junit "+bad, args)
	}
}
