package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/corpus"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePeerEnv selects the behaviour of TestFakePeer when this test binary is
// re-executed as a conform subject.
const fakePeerEnv = "FRAMEPROOF_FAKE_PEER"

// TestFakePeer is not a test: re-executed with FRAMEPROOF_FAKE_PEER=mode it
// is a stdio protocol v1 implementation backed by impl/frames, broken on
// purpose in the ways the mode names:
//
//	good           faithful
//	corrupt-frame  changes one byte of the first text_delta frame it sends
//	bad-hello      announces protocol version 2
//	crash          exits after 5 requests
//	reject-parse   answers every parse request with a protocolError
//	exit-1         faithful, but exits with status 1 at end of input
func TestFakePeer(t *testing.T) {
	mode := os.Getenv(fakePeerEnv)
	if mode == "" {
		t.Skip("helper process for the conform tests")
	}
	os.Exit(serveFake(mode))
}

func fakePeerCommand(t *testing.T, mode string) string {
	t.Setenv(fakePeerEnv, mode)
	return fmt.Sprintf("'%s' -test.run=^TestFakePeer$", os.Args[0])
}

func serveFake(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	version := 1
	if mode == "bad-hello" {
		version = 2
	}
	fmt.Fprintf(out, `{"hello":"frameproof-stdio","version":%d,"implementation":"fake-%s","implementationVersion":"0"}`+"\n", version, mode)
	out.Flush()
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	codec := corpus.GoCodec{}
	corrupted := false
	for n := 1; ; n++ {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) == 0 {
			if err != nil {
				break
			}
			continue
		}
		if mode == "crash" && n > 5 {
			return 2
		}
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Op     string            `json:"op"`
			Events []json.RawMessage `json:"events"`
			Frames []json.RawMessage `json:"frames"`
			Inputs []json.RawMessage `json:"inputs"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintf(out, `{"id":null,"protocolError":"bad request"}`+"\n")
			out.Flush()
			continue
		}
		var b []byte
		b = append(append(append(b, `{"id":`...), req.ID...), ',')
		switch {
		case req.Op == "encode":
			frames, idx, msg, _ := codec.Encode(req.Events)
			for i, f := range frames {
				if mode == "corrupt-frame" && !corrupted && bytes.Contains(f, []byte(`"type":"text_delta"`)) {
					frames[i] = bytes.Replace(f, []byte(`"delta":"`), []byte(`"delta":"~`), 1)
					corrupted = true
				}
			}
			b = append(b, `"frames":[`...)
			for i, f := range frames {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, f...)
			}
			b = append(b, ']')
			if idx >= 0 {
				b = fmt.Appendf(b, `,"error":{"index":%d,"message":%q}`, idx, msg)
			}
		case req.Op == "reduce":
			m, msg, _ := codec.Reduce(req.Frames)
			if msg != "" {
				b = fmt.Appendf(b, `"error":{"message":%q}`, msg)
			} else {
				b = append(append(b, `"message":`...), m...)
			}
		case req.Op == "parse" && mode != "reject-parse":
			res, _ := codec.ParseStreamingJSON(req.Inputs)
			b = append(b, `"results":[`...)
			for i, r := range res {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, r...)
			}
			b = append(b, ']')
		default:
			b = append(b, `"protocolError":"unsupported op"`...)
		}
		out.Write(append(b, "}\n"...))
		out.Flush()
		if err != nil {
			break
		}
	}
	if mode == "exit-1" {
		return 1
	}
	return 0
}

func decodeReport(t *testing.T, stdout string) Report {
	t.Helper()
	var r Report
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&r), stdout)
	return r
}

func vectorCount(t *testing.T) int {
	root, err := corpus.Root()
	require.NoError(t, err)
	vs, err := corpus.LoadCodec(corpus.CodecDir(root))
	require.NoError(t, err)
	return len(vs)
}

func TestConformSelfPasses(t *testing.T) {
	code, stdout, stderr := run("conform", "--self", "--json")
	require.Equal(t, exitPass, code, stderr)
	r := decodeReport(t, stdout)
	assert.Equal(t, "pass", r.Verdict)
	assert.Equal(t, vectorCount(t), r.Tests)
	assert.Equal(t, r.Tests, r.Passed)
	assert.Regexp(t, `^codec/1\+sha256:[0-9a-f]{16}$`, r.CorpusVersion)
	assert.Equal(t, "frameproof", r.Implementation.Name)
	names := []string{}
	for _, s := range r.Suites {
		names = append(names, s.Name)
	}
	assert.ElementsMatch(t, corpus.CodecOps, names)

	code, stdout, _ = run("conform", "--self", "-q", "--ops", "parse")
	require.Equal(t, exitPass, code)
	assert.Contains(t, stdout, "certificate\n")
	assert.Regexp(t, `vectors +\d+ \(parse \d+/\d+\)`, stdout)
	assert.Contains(t, stdout, "verdict         PASS")
	assert.NotContains(t, stdout, "ok   parse/")
}

// TestConformPiAIPeer: the real pi-ai driver passes every codec vector.
func TestConformPiAIPeer(t *testing.T) {
	p := peer.Open(t) // skip / fail policy of FRAMEPROOF_REQUIRE_PEER
	require.NoError(t, p.Close())
	dir, err := peer.Dir()
	require.NoError(t, err)
	junit := filepath.Join(t.TempDir(), "pi.xml")
	code, stdout, stderr := run("conform", "--exec", fmt.Sprintf("node '%s'", filepath.Join(dir, "driver.mjs")), "--json", "--junit", junit)
	require.Equal(t, exitPass, code, stderr)
	r := decodeReport(t, stdout)
	assert.Equal(t, ReportImplementation{Name: "pi-ai", Version: "1.0.3", Protocol: "frameproof-stdio/1",
		Command: fmt.Sprintf("node '%s'", filepath.Join(dir, "driver.mjs"))}, *r.Implementation)
	assert.Equal(t, vectorCount(t), r.Passed)
	assert.Zero(t, r.Failed+r.Errors+r.Skipped)
	x := decodeJUnit(t, junit)
	assert.Equal(t, r.Tests, x.Tests)
	assert.Zero(t, x.Failures)
}

func decodeJUnit(t *testing.T, path string) junitSuites {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var x junitSuites
	require.NoError(t, xml.Unmarshal(data, &x))
	return x
}

func TestConformFakePeerGoodPasses(t *testing.T) {
	code, stdout, stderr := run("conform", "--exec", fakePeerCommand(t, "good"), "-q")
	require.Equal(t, exitPass, code, stdout+stderr)
	assert.Contains(t, stdout, "implementation  fake-good 0")
	assert.Contains(t, stdout, "protocol        frameproof-stdio/1")
}

// TestConformCatchesCorruptFrame is conform's mutation test: one wrong byte
// in one frame fails exactly that vector, with a diff, and exits 1.
func TestConformCatchesCorruptFrame(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "out.xml")
	code, stdout, stderr := run("conform", "--exec", fakePeerCommand(t, "corrupt-frame"), "--json", "--junit", junit)
	require.Equal(t, exitFail, code, stderr)
	r := decodeReport(t, stdout)
	assert.Equal(t, "fail", r.Verdict)
	assert.Equal(t, exitFail, r.ExitCode)
	assert.Equal(t, 1, r.Failed)
	assert.Equal(t, r.Tests-1, r.Passed)
	var failed ReportCase
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			if c.Status == statusFail {
				failed = c
				assert.Equal(t, "encode", s.Name)
			}
		}
	}
	assert.Contains(t, failed.Detail, "differs at byte")
	assert.Contains(t, failed.Detail, `"delta":"~`)

	x := decodeJUnit(t, junit)
	assert.Equal(t, 1, x.Failures)
	n := 0
	for _, s := range x.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				n++
				assert.Equal(t, failed.Name, c.Name)
				assert.Equal(t, "frameproof.conform.encode", c.Classname)
				assert.Contains(t, c.Failure.Text, `"delta":"~`)
			}
		}
	}
	assert.Equal(t, 1, n)

	code, stdout, _ = run("conform", "--exec", fakePeerCommand(t, "corrupt-frame"))
	require.Equal(t, exitFail, code)
	assert.Contains(t, stdout, "FAIL "+failed.Name+"\n")
	assert.Contains(t, stdout, "verdict         FAIL")
}

func TestConformInconclusive(t *testing.T) {
	for mode, want := range map[string]string{
		"crash":        "not run",
		"reject-parse": "protocol violation",
		"exit-1":       "protocol violation at end of input",
	} {
		t.Run(mode, func(t *testing.T) {
			code, stdout, stderr := run("conform", "--exec", fakePeerCommand(t, mode), "--json")
			require.Equal(t, exitInconclusive, code, stdout+stderr)
			r := decodeReport(t, stdout)
			assert.Equal(t, "inconclusive", r.Verdict)
			assert.Zero(t, r.Failed)
			assert.Contains(t, stdout, want)
		})
	}
	code, _, stderr := run("conform", "--exec", "/nonexistent/implementation")
	assert.Equal(t, exitIO, code, "an implementation that cannot start is an environment error")
	assert.Contains(t, stderr, "/nonexistent/implementation")
}

// A garbage hello is the environment class (exit 4) in conform as in
// provider fuzz (issue 29 class 8: conform said 3): the peer broke the
// protocol before any vector ran. The certificate still says why.
func TestConformBadHelloIsAnEnvironmentError(t *testing.T) {
	code, stdout, stderr := run("conform", "--exec", fakePeerCommand(t, "bad-hello"), "--json")
	require.Equal(t, exitCode(classEnvironment), code, stdout+stderr)
	r := decodeReport(t, stdout)
	assert.Equal(t, "inconclusive", r.Verdict)
	assert.Contains(t, r.Note, "protocol version 2, want 1")
}

func TestConformUsage(t *testing.T) {
	for name, args := range map[string][]string{
		"neither":        {},
		"both":           {"--self", "--exec", "x"},
		"project":        {"--self", "--ops", "project"},
		"unknown op":     {"--self", "--ops", "encode,bench"},
		"no ops":         {"--self", "--ops", ","},
		"bad flag":       {"--self", "--nope"},
		"extra argument": {"--self", "extra"},
		"quote":          {"--exec", "node 'driver.mjs"},
		"empty exec":     {"--exec", "  "},
		"corpus":         {"--self", "--corpus", "/nonexistent"},
	} {
		code, _, stderr := run(append([]string{"conform"}, args...)...)
		assert.Equal(t, exitUsage, code, name)
		assert.NotEmpty(t, stderr, name)
	}
	code, _, stderr := run("conform", "--self", "--timeout", "0s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--timeout 0s: must be positive")
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		`node corpus/peers/pi-ai/driver.mjs`: {"node", "corpus/peers/pi-ai/driver.mjs"},
		`  a   b  `:                          {"a", "b"},
		`sh -c 'echo "x y"; exit 0'`:         {"sh", "-c", `echo "x y"; exit 0`},
		`"a b"c 'd'"e"`:                      {"a bc", "de"},
		`a\ b "q\"x\n"`:                      {"a b", `q"x\n`},
		`''`:                                 {""},
		``:                                   nil,
	} {
		got, err := splitWords(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{`'a`, `"a`, `a\`} {
		_, err := splitWords(bad)
		assert.Error(t, err, bad)
	}
}
