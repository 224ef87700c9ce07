package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func codecVectors(t *testing.T) []CodecVector {
	t.Helper()
	root, err := Root()
	require.NoError(t, err)
	vs, err := LoadCodec(CodecDir(root))
	require.NoError(t, err)
	return vs
}

// TestCodecVectorsGo: every recorded pi-ai output is reproduced byte for
// byte by impl/frames.
func TestCodecVectorsGo(t *testing.T) {
	for _, v := range codecVectors(t) {
		verdict, err := CheckCodec(GoCodec{}, v)
		require.NoError(t, err, v.Where())
		assert.True(t, verdict.Pass, "%s:\n%s", v.Where(), verdict.Diff)
	}
}

// TestCodecVectorsPeer re-checks the recording against the installed pi-ai
// (skips without node_modules unless FRAMEPROOF_REQUIRE_PEER=1).
func TestCodecVectorsPeer(t *testing.T) {
	p := peer.Open(t)
	for _, v := range codecVectors(t) {
		verdict, err := CheckCodec(p, v)
		require.NoError(t, err, v.Where())
		assert.True(t, verdict.Pass, "%s:\n%s", v.Where(), verdict.Diff)
	}
}

// TestCodecCoverage: the corpus keeps every pi error message and the edge
// behaviours it was built for, so regenerating cannot silently lose them.
func TestCodecCoverage(t *testing.T) {
	vs := codecVectors(t)
	counts := CountByOp(vs)
	assert.GreaterOrEqual(t, counts[OpEncode], 100)
	assert.GreaterOrEqual(t, counts[OpReduce], 80)
	assert.GreaterOrEqual(t, counts[OpParse], 100)

	errs := map[string][]string{}
	joined := map[string]string{}
	for _, v := range vs {
		if v.Expect.Error != nil {
			errs[v.Op] = append(errs[v.Op], v.Expect.Error.Message)
		}
		var b strings.Builder
		for _, f := range v.Expect.Frames {
			b.Write(f)
		}
		b.Write(v.Expect.Message)
		b.Write(v.Expect.Result)
		joined[v.Op] += b.String() + "\n"
	}
	want := map[string][]string{
		OpEncode: {`^Assistant message event \w+ follows a terminal event$`, `^Assistant message stream contains more than one start event$`,
			`^Assistant message done event appears before start$`, `^Assistant message \w+ event appears before start$`,
			`^Invalid assistant message frame contentIndex: `, `^\w+ event has no content block at index \d+$`,
			`^\w+_start event points to \w+ block at index \d+$`, `^Assistant message block \d+ starts more than once$`,
			`^Assistant message \w+ block \d+ has not started$`, `^Assistant message block \d+ is \w+, not \w+$`,
			`^Tool-call arguments are not JSON-serializable$`},
		OpReduce: {`^Assistant message frame sequence contains more than one start frame$`, `^\w+ frame appears before the start frame$`,
			`^\w+_start frame contains \w+ content$`, `: already exists$`, `: would leave a gap$`, `^\w+ frame has no started block at index \d+$`,
			`^\w+ frame expected \w+ block at index \d+, found \w+$`, `^\w+ frame follows the end of block at index \d+$`,
			`^Invalid assistant message frame contentIndex: `},
	}
	for op, patterns := range want {
		for _, p := range patterns {
			re := regexp.MustCompile(p)
			found := false
			for _, m := range errs[op] {
				found = found || re.MatchString(m)
			}
			assert.True(t, found, "%s: no vector expects an error matching %s", op, p)
		}
	}
	for op, needles := range map[string][]string{
		OpEncode: {`"type":"toolcall_checkpoint"`, `\ud83d"`, `"redacted":true`, `"type":"toolcall_delta"`, `"type":"thinking_delta"`, `"textSignature"`},
		OpReduce: {`"arguments":"ab"`, `\udc00`, `"redacted":true`},
		OpParse:  {"\nnull\n", "\n{}\n", "\n[", "\n\"", "\ntrue\n"},
	} {
		for _, n := range needles {
			assert.Contains(t, joined[op], n, "%s outputs", op)
		}
	}
	// A covered delta: some delta event gives no frame.
	covered := false
	for _, v := range vs {
		for i, f := range v.Expect.Frames {
			covered = covered || (string(f) == "null" && bytes.Contains(v.Events[i], []byte(`_delta"`)))
		}
	}
	assert.True(t, covered, "no vector has a covered delta")
}

// brokenCodec corrupts one kind of output of an otherwise correct codec.
type brokenCodec struct {
	GoCodec
	op string
}

func flip(b []byte) json.RawMessage {
	out := append([]byte(nil), b...)
	if i := bytes.LastIndexByte(out, '"'); i > 0 && out[i-1] != '"' && out[i-1] != '\\' {
		out[i-1] ^= 1 // change the last character of the last string
		return out
	}
	return append(out[:len(out):len(out)], ' ')
}

func (b brokenCodec) Encode(ev []json.RawMessage) ([]json.RawMessage, int, string, error) {
	fs, i, msg, err := b.GoCodec.Encode(ev)
	if b.op == "encode" {
		for k := range fs {
			if bytes.Contains(fs[k], []byte(`"type":"text_delta"`)) {
				fs[k] = flip(fs[k])
				break
			}
		}
	}
	if b.op == "encode-error" && msg != "" {
		msg += "."
	}
	return fs, i, msg, err
}

func (b brokenCodec) Reduce(fs []json.RawMessage) (json.RawMessage, string, error) {
	m, msg, err := b.GoCodec.Reduce(fs)
	if b.op == "reduce" && msg == "" && string(m) != "null" {
		m = flip(m)
	}
	return m, msg, err
}

func (b brokenCodec) ParseStreamingJSON(in []json.RawMessage) ([]json.RawMessage, error) {
	r, err := b.GoCodec.ParseStreamingJSON(in)
	if b.op == "parse" && err == nil && string(r[0]) == "{}" {
		r[0] = json.RawMessage("null")
	}
	return r, err
}

// TestCodecCheckerCatchesBrokenCodecs is the mutation test for CheckCodec.
func TestCodecCheckerCatchesBrokenCodecs(t *testing.T) {
	vs := codecVectors(t)
	for _, op := range []string{"encode", "encode-error", "reduce", "parse"} {
		failed := 0
		for _, v := range vs {
			verdict, err := CheckCodec(brokenCodec{op: op}, v)
			require.NoError(t, err)
			if !verdict.Pass {
				failed++
				assert.NotEmpty(t, verdict.Diff)
			}
		}
		assert.Greater(t, failed, 0, "a codec broken on %s passed every vector", op)
		t.Logf("broken %s: %d vectors fail", op, failed)
	}
}

// TestCodecFilesRoundTrip: every file is exactly what AppendCodecVector
// writes for its vectors, so nothing was hand-edited into another form.
func TestCodecFilesRoundTrip(t *testing.T) {
	root, err := Root()
	require.NoError(t, err)
	files, err := codecFiles(CodecDir(root))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		vs, err := ReadCodec(bytes.NewReader(data), filepath.Base(f))
		require.NoError(t, err)
		var out []byte
		for _, v := range vs {
			out = AppendCodecVector(out, v)
		}
		require.Equal(t, string(data), string(out), f)
	}
}

func TestReadCodecRejectsBadLines(t *testing.T) {
	good := `{"schema":1,"name":"p","op":"parse","source":"s","input":"x","expect":{"result":{}}}`
	for name, line := range map[string]string{
		"schema":        strings.Replace(good, `"schema":1`, `"schema":2`, 1),
		"unknown field": strings.Replace(good, `"source"`, `"sauce"`, 1),
		"unknown op":    strings.Replace(good, `"op":"parse"`, `"op":"project"`, 1),
		"no name":       strings.Replace(good, `"name":"p"`, `"name":""`, 1),
		"not json":      `{"schema":1,`,
		"input number":  strings.Replace(good, `"input":"x"`, `"input":5`, 1),
		"encode count":  `{"schema":1,"name":"e","op":"encode","source":"s","events":[{}],"expect":{"frames":[]}}`,
		"encode index":  `{"schema":1,"name":"e","op":"encode","source":"s","events":[{}],"expect":{"frames":[],"error":{"index":1,"message":"m"}}}`,
		"reduce both":   `{"schema":1,"name":"r","op":"reduce","source":"s","frames":[],"expect":{"message":null,"error":{"message":"m"}}}`,
	} {
		_, err := ReadCodec(strings.NewReader("\n"+line+"\n"), "x.jsonl")
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "x.jsonl:2", name)
	}
	vs, err := ReadCodec(strings.NewReader(good+"\n"), "x.jsonl")
	require.NoError(t, err)
	require.Len(t, vs, 1)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(good+"\n"+good+"\n"), 0o644))
	_, err = LoadCodec(dir)
	require.ErrorContains(t, err, "duplicate vector name")
}

func TestCodecVersionTracksBytes(t *testing.T) {
	dir := t.TempDir()
	line := `{"schema":1,"name":"p","op":"parse","source":"s","input":"x","expect":{"result":{}}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(line), 0o644))
	v1, err := CodecVersion(dir)
	require.NoError(t, err)
	assert.Regexp(t, `^codec/1\+sha256:[0-9a-f]{16}$`, v1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(strings.Replace(line, `"s"`, `"t"`, 1)), 0o644))
	v2, err := CodecVersion(dir)
	require.NoError(t, err)
	assert.NotEqual(t, v1, v2)
}
