package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A valid tape file of the fake suite's coin scenario: 3 ops, values 1, 2, 3.
const validTape = `{"schema":1,"scenario":"coin","backend":"memory","seed":7,"originalLen":9,"tape":[
 {"l":"ops","n":20,"v":2},{"l":"value","n":10,"v":1},{"l":"value","n":10,"v":2},{"l":"value","n":10,"v":3}]}`

func writeTape(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tape.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path
}

func reproTape(t *testing.T, path string, extra ...string) (int, string, string) {
	dir := t.TempDir()
	args := append([]string{"repro", "--tape", path, "--trace", filepath.Join(dir, "t.jsonl"), "--html", filepath.Join(dir, "r.html"), "-q"}, extra...)
	return run(args...)
}

func TestTapeFilesAreValidated(t *testing.T) {
	withSuite(t, fakeSuite{})
	code, stdout, stderr := reproTape(t, writeTape(t, validTape))
	require.Equal(t, exitPass, code, stdout+stderr)

	for name, tc := range map[string]struct{ body, want string }{
		"value out of range":  {strings.Replace(validTape, `"v":3`, `"v":10`, 1), `choice 3 ("value"): value 10 out of range [0, 10)`},
		"negative value":      {strings.Replace(validTape, `"v":3`, `"v":-1`, 1), `value -1 out of range`},
		"n zero":              {strings.Replace(validTape, `"n":20`, `"n":0`, 1), `choice 0 ("ops"): n 0, want >= 2`},
		"negative n":          {strings.Replace(validTape, `"n":20`, `"n":-4`, 1), `n -4, want >= 2`},
		"n missing":           {strings.Replace(validTape, `"n":20,`, ``, 1), `n 0, want >= 2`},
		"null tape":           {`{"schema":1,"scenario":"coin","backend":"memory","seed":7,"originalLen":9,"tape":null}`, `"tape" is missing or null`},
		"no tape":             {`{"schema":1,"scenario":"coin","backend":"memory","seed":7,"originalLen":9}`, `no "tape"`},
		"empty, never shrunk": {`{"schema":1,"scenario":"coin","backend":"memory","seed":7,"originalLen":0,"tape":[]}`, `"tape" is empty`},
		"originalLen short":   {strings.Replace(validTape, `"originalLen":9`, `"originalLen":2`, 1), `"originalLen" 2 is shorter than the tape (4 choices)`},
		"negative seed":       {strings.Replace(validTape, `"seed":7`, `"seed":-7`, 1), `not a tape file`},
		"no scenario":         {strings.Replace(validTape, `"scenario":"coin"`, `"scenario":""`, 1), `"scenario" is missing or empty`},
		"unknown scenario":    {strings.Replace(validTape, `"scenario":"coin"`, `"scenario":"nope"`, 1), `unknown scenario "nope"`},
		"schema 2":            {strings.Replace(validTape, `"schema":1`, `"schema":2`, 1), `schema 2, want 1`},
		"unknown field":       {strings.Replace(validTape, `"seed":7`, `"seed":7,"extra":1`, 1), `unknown field "extra"`},
		"null file":           {`null`, `no "schema"`},
		"two values":          {validTape + validTape, `after top-level value`},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := reproTape(t, writeTape(t, tc.body))
			assert.Equal(t, exitUsage, code, stdout+stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, stdout, "nothing replayed")
		})
	}

	// A tape shrunk to nothing (all simplest choices) is a valid result of
	// shrinking.
	code, stdout, stderr = reproTape(t, writeTape(t, `{"schema":1,"scenario":"coin","backend":"memory","seed":7,"originalLen":9,"tape":[]}`))
	assert.Equal(t, exitPass, code, stdout+stderr)
}

func TestTapeFlagsMustMatchUnlessForced(t *testing.T) {
	withSuite(t, fakeSuite{})
	tape := writeTape(t, strings.Replace(validTape, `"seed":7`, `"seed":7,"bugs":["big-value"]`, 1))
	for _, extra := range [][]string{{"--scenario", "rare"}, {"--backend", "jsonl"}, {"--bug", "flaky"}, {"--bug", ""}} {
		code, stdout, stderr := reproTape(t, tape, extra...)
		assert.Equal(t, exitUsage, code, "%q: %s", extra, stdout+stderr)
		assert.Contains(t, stderr, "differ from what the tape recorded", extra)
		assert.Contains(t, stderr, "--force", extra)
	}
	// Flags that repeat the tape are fine; the tape's bug is applied.
	code, stdout, stderr := reproTape(t, tape, "--scenario", "coin", "--backend", "memory", "--bug", "big-value")
	assert.Equal(t, exitPass, code, stdout+stderr, "values 1, 2, 3 stay below the bug's 7")
	code, stdout, stderr = reproTape(t, tape, "--backend", "jsonl", "--force")
	assert.Equal(t, exitPass, code, stdout+stderr)
	assert.Contains(t, stdout, "verdict: PASS")
}

// A tape file prints one choice a line and reads back as written.
func TestTapeFileOneChoiceALine(t *testing.T) {
	tf := tapeFile{Schema: TapeSchema, Scenario: "mix", Backend: "memory", Seed: 7, Message: `a "tape": [] inside`,
		OriginalLen: 9, Tape: choice.Tape{{Label: "sched", N: 5, V: 2}, {Label: "fault", N: 2, V: 1}}}
	data, err := encodeTapeFile(tf)
	require.NoError(t, err)
	require.Contains(t, string(data), "\"tape\": [\n  {\"l\":\"sched\",\"n\":5,\"v\":2},\n  {\"l\":\"fault\",\"n\":2,\"v\":1}\n ]\n}")
	var back tapeFile
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, tf, back)

	tf.Tape, tf.Message = nil, ""
	data, err = encodeTapeFile(tf)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, choice.Tape{}, back.Tape)
	require.NoError(t, back.validate())
}
