package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
)

// Machine-readable results shared by conform, corpus run and sim: a JSON
// summary (--json) and JUnit XML (--junit FILE), both built from one Report.

// ReportSchema versions the JSON summary below.
const ReportSchema = 1

// Case statuses.
const (
	statusPass    = "pass"
	statusFail    = "fail"    // the subject answered, and the answer is wrong
	statusError   = "error"   // no verdict: protocol violation, transport failure, harness error
	statusSkipped = "skipped" // not run (e.g. the peer died before it)
)

// Report is the JSON summary printed by --json.
type Report struct {
	Schema  int    `json:"schema"`  // ReportSchema
	Command string `json:"command"` // "conform", "corpus run", ...
	// Verdict is "pass", "fail" or "inconclusive"; ExitCode is the process
	// exit code that goes with it (0, 1, 3).
	Verdict  string `json:"verdict"`
	ExitCode int    `json:"exitCode"`
	// Implementation is the subject (conform: from the peer's hello line).
	Implementation *ReportImplementation `json:"implementation,omitempty"`
	// CorpusVersion identifies the vectors run (schema + content hash).
	CorpusVersion string `json:"corpusVersion,omitempty"`
	// Totals over all suites.
	Tests   int `json:"tests"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errors  int `json:"errors"`
	Skipped int `json:"skipped"`
	// Note explains an inconclusive run (e.g. the peer could not start).
	Note   string        `json:"note,omitempty"`
	Suites []ReportSuite `json:"suites"`
	// Sim carries the campaign details of `frameproof sim` (see simreport.go).
	Sim *SimReport `json:"sim,omitempty"`
}

// ReportImplementation names what was tested.
type ReportImplementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Protocol string `json:"protocol,omitempty"` // e.g. "frameproof-stdio/1"; empty for in-process runs
	Command  string `json:"command,omitempty"`  // the --exec command line
}

// ReportSuite is one family of cases (a codec op, a corpus family).
type ReportSuite struct {
	Name    string       `json:"name"`
	Tests   int          `json:"tests"`
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Errors  int          `json:"errors"`
	Skipped int          `json:"skipped"`
	Cases   []ReportCase `json:"cases"`
}

// ReportCase is one vector or corpus entry.
type ReportCase struct {
	Name   string `json:"name"`
	Status string `json:"status"`           // pass | fail | error | skipped
	Detail string `json:"detail,omitempty"` // short diff or error text
}

// add appends a case to the named suite (created on first use) and updates
// the counters.
func (r *Report) add(suite string, c ReportCase) {
	i := 0
	for i < len(r.Suites) && r.Suites[i].Name != suite {
		i++
	}
	if i == len(r.Suites) {
		r.Suites = append(r.Suites, ReportSuite{Name: suite, Cases: []ReportCase{}})
	}
	s := &r.Suites[i]
	s.Cases = append(s.Cases, c)
	s.Tests++
	r.Tests++
	switch c.Status {
	case statusPass:
		s.Passed++
		r.Passed++
	case statusFail:
		s.Failed++
		r.Failed++
	case statusError:
		s.Errors++
		r.Errors++
	default:
		s.Skipped++
		r.Skipped++
	}
}

// finish sets Verdict and ExitCode: any failure is a fail (a definite
// finding); otherwise any error or skip, or no tests at all, is
// inconclusive; otherwise pass.
func (r *Report) finish() int {
	switch {
	case r.Failed > 0:
		r.Verdict, r.ExitCode = "fail", exitFail
	case r.Errors > 0 || r.Skipped > 0 || r.Tests == 0 || r.Note != "":
		r.Verdict, r.ExitCode = "inconclusive", exitInconclusive
	default:
		r.Verdict, r.ExitCode = "pass", exitPass
	}
	return r.ExitCode
}

// writeJSON prints r as indented JSON.
func (r *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// JUnit XML, as read by CI systems (Jenkins, GitHub Actions reporters,
// GitLab): testsuites > testsuite > testcase > failure | error | skipped.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes r as JUnit XML. Suites are named "<command>.<suite>";
// the implementation and corpus version travel as suite properties.
func (r *Report) writeJUnit(w io.Writer) error {
	out := junitSuites{Name: "frameproof " + r.Command, Tests: r.Tests, Failures: r.Failed, Errors: r.Errors, Skipped: r.Skipped}
	var props []junitProperty
	if r.Implementation != nil {
		props = append(props, junitProperty{"implementation", r.Implementation.Name + " " + r.Implementation.Version})
	}
	if r.CorpusVersion != "" {
		props = append(props, junitProperty{"corpusVersion", r.CorpusVersion})
	}
	for _, s := range r.Suites {
		class := junitClass(r.Command, s.Name)
		js := junitSuite{Name: class, Tests: s.Tests, Failures: s.Failed, Errors: s.Errors, Skipped: s.Skipped, Properties: props}
		for _, c := range s.Cases {
			jc := junitCase{Name: c.Name, Classname: class}
			p := &junitProblem{Message: firstLine(c.Detail), Text: c.Detail}
			switch c.Status {
			case statusFail:
				jc.Failure = p
			case statusError:
				jc.Error = p
			case statusSkipped:
				jc.Skipped = p
			}
			js.Cases = append(js.Cases, jc)
		}
		out.Suites = append(out.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitClass(command, suite string) string {
	b := []byte("frameproof." + command + "." + suite)
	for i, c := range b {
		if c == ' ' || c == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// writeJUnitFile writes the JUnit XML to path ("-" is not allowed: stdout
// carries the human or JSON output).
func (r *Report) writeJUnitFile(path string) error {
	return createWith(path, "junit", r.writeJUnit)
}

// createWith creates path and fills it with write. Errors read "WHAT: ..."
// for the create and "WHAT: write PATH: ..." for the write or the close
// (a file whose close fails may not hold what was written).
func createWith(path, what string, write func(io.Writer) error) error {
	f, err := createOutput(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: write %s: %w", what, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: write %s: %w", what, path, err)
	}
	return nil
}

// writeJUnitKeeping writes the JUnit file when path is set and returns the
// exit code to use. A file that cannot be written must not hide the result:
// callers print the report either way, a failure keeps exit 1 (its
// reproduction lines matter more), anything else becomes exit 4 (I/O).
func (r *Report) writeJUnitKeeping(path, who string, code int, stderr io.Writer) int {
	if path == "" {
		return code
	}
	if err := r.writeJUnitFile(path); err != nil {
		fmt.Fprintf(stderr, "%s: --junit: %v\n", who, err)
		return outputCode(code, err)
	}
	return code
}
