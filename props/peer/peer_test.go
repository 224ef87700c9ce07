package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rawStrings(rs []json.RawMessage) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

func TestHelloIsPinnedPiAi(t *testing.T) {
	p := Open(t)
	assert.Equal(t, Hello{Protocol: ProtocolName, Version: 1, Implementation: "pi-ai", ImplementationVersion: "1.0.3"}, p.Hello())
}

func TestEncodeTinyStream(t *testing.T) {
	p := Open(t)
	frames, errIndex, errMsg, err := p.Encode(tinyStream())
	require.NoError(t, err)
	assert.Equal(t, -1, errIndex)
	assert.Empty(t, errMsg)
	assert.Equal(t, tinyFrames(), rawStrings(frames))
}

// The encoder reads each event's own partial: a text_start whose partial is
// already ahead covers the delta that follows, which then emits no frame.
func TestEncodeReadsEventPartialAsGiven(t *testing.T) {
	p := Open(t)
	events := raws(
		`{"type":"start","partial":`+partial(`[]`, "stop")+`}`,
		`{"type":"text_start","contentIndex":0,"partial":`+partial(textContent("Hel"), "stop")+`}`,
		`{"type":"text_delta","contentIndex":0,"delta":"Hel","partial":`+partial(textContent("Hel"), "stop")+`}`,
		`{"type":"text_delta","contentIndex":0,"delta":"lo","partial":`+partial(textContent("Hello"), "stop")+`}`,
	)
	frames, errIndex, _, err := p.Encode(events)
	require.NoError(t, err)
	require.Equal(t, -1, errIndex)
	assert.Equal(t, []string{
		`{"type":"start","partial":` + partial(`[]`, "pending") + `}`,
		`{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"Hel"}}`,
		`null`,
		`{"type":"text_delta","contentIndex":0,"delta":"lo"}`,
	}, rawStrings(frames))
}

func TestEncodeErrorCarriesPiMessageAndIndex(t *testing.T) {
	p := Open(t)
	frames, errIndex, errMsg, err := p.Encode(raws(`{"type":"text_delta","contentIndex":0,"delta":"x","partial":` + partial(textContent("x"), "stop") + `}`))
	require.NoError(t, err)
	assert.Equal(t, 0, errIndex)
	assert.Equal(t, "Assistant message text_delta event appears before start", errMsg)
	assert.Empty(t, frames)

	// Mid-stream: the frames before the throwing event are returned.
	stream := tinyStream()
	events := append(append([]json.RawMessage{}, stream[:2]...), stream[1])
	frames, errIndex, errMsg, err = p.Encode(events)
	require.NoError(t, err)
	assert.Equal(t, 2, errIndex)
	assert.Equal(t, "Assistant message block 0 starts more than once", errMsg)
	assert.Equal(t, tinyFrames()[:2], rawStrings(frames))
}

func TestReduceRoundTrip(t *testing.T) {
	p := Open(t)
	var frames []json.RawMessage
	for _, f := range tinyFrames() {
		if f != "null" {
			frames = append(frames, json.RawMessage(f))
		}
	}
	msg, errMsg, err := p.Reduce(frames)
	require.NoError(t, err)
	require.Empty(t, errMsg)
	assert.Equal(t, partial(textContent("Hello 😀"), "pending"), string(msg))

	msg, errMsg, err = p.Reduce(nil)
	require.NoError(t, err)
	assert.Empty(t, errMsg)
	assert.Equal(t, "null", string(msg), "no start frame reduces to undefined, sent as null")

	_, errMsg, err = p.Reduce(raws(tinyFrames()[0], `{"type":"text_delta","contentIndex":0,"delta":"x"}`))
	require.NoError(t, err)
	assert.Equal(t, "text_delta frame has no started block at index 0", errMsg)

	_, errMsg, err = p.Reduce(raws(`{"type":"text_delta","contentIndex":0,"delta":"x"}`, tinyFrames()[0]))
	require.NoError(t, err)
	assert.Equal(t, "text_delta frame appears before the start frame", errMsg)
}

func TestParseStreamingJSON(t *testing.T) {
	p := Open(t)
	cases := []struct{ input, want string }{
		{`"{\"a\":1"`, `{"a":1}`},
		{`""`, `{}`},
		{`"   "`, `{}`},
		{`"[1,2"`, `[1,2]`},
		{`"5"`, `5`},
		{`"null"`, `null`},
		{`"tru"`, `true`},
		{`"\"abc"`, `"abc"`},
		{`"abc"`, `{}`},
		{`"12."`, `{}`},
		{`"NaN"`, `null`}, // parsed to NaN, which JSON.stringify prints as null
		{`"{\"a\":[1,{\"b\":"`, `{"a":[1,{}]}`},
		{`"{\"a\":\"\\x\"}"`, `{"a":"\\x"}`}, // invalid escape repaired by doubling the backslash
		{`"\"\ud800\""`, `"\ud800"`},         // a lone surrogate survives both ways as an escape
		{`"\"<&>\""`, `"<&>"`},
	}
	inputs := make([]json.RawMessage, len(cases))
	for i, c := range cases {
		inputs[i] = json.RawMessage(c.input)
	}
	results, err := p.ParseStreamingJSON(inputs)
	require.NoError(t, err)
	require.Len(t, results, len(cases))
	for i, c := range cases {
		assert.Equal(t, c.want, string(results[i]), "parseStreamingJson(%s)", c.input)
	}
}

// Lone surrogates in a delta travel as \udXXX escapes and come back verbatim.
func TestEncodeKeepsLoneSurrogateEscapes(t *testing.T) {
	p := Open(t)
	stream := tinyStream()
	events := raws(string(stream[0]), string(stream[1]),
		`{"type":"text_delta","contentIndex":0,"delta":"a\ud83d","partial":{"role":"assistant","content":[{"type":"text","text":"a\ud83d"}]}}`)
	frames, errIndex, _, err := p.Encode(events)
	require.NoError(t, err)
	require.Equal(t, -1, errIndex)
	assert.Equal(t, `{"type":"text_delta","contentIndex":0,"delta":"a\ud83d"}`, string(frames[2]))
}

func TestProtocolErrors(t *testing.T) {
	p := Open(t)
	line, err := p.RoundTrip([]byte(`not json`))
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(line, []byte(`{"id":null,"protocolError":"bad JSON request line: `)), "%s", line)

	line, err = p.RoundTrip([]byte(`{"id":"x","op":"frobnicate"}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":"x","protocolError":"unknown op: \"frobnicate\""}`, string(line))

	line, err = p.RoundTrip([]byte(`{"id":7,"op":"parse","inputs":[1]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":7,"protocolError":"op parse: inputs[0] must be a string"}`, string(line))

	line, err = p.RoundTrip([]byte(`{"id":8,"op":"bench","events":[],"iterations":1,"stringify":1}`))
	require.NoError(t, err)
	assert.Equal(t, `{"id":8,"protocolError":"op bench: field \"stringify\" must be a boolean"}`, string(line))

	var r encodeResponse
	err = p.call("encode", func(b *bytes.Buffer) error { b.WriteString(`,"events":{}`); return nil }, &r)
	var pe *ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, `op encode: field "events" must be an array`, pe.Message)

	_, err = p.ParseStreamingJSON(raws(`3`))
	require.ErrorAs(t, err, &pe)

	_, err = p.BenchEncode(tinyStream(), 0)
	require.ErrorContains(t, err, "iterations 0: must be at least 1")

	// A protocol error does not desynchronise the stream.
	frames, _, _, err := p.Encode(tinyStream())
	require.NoError(t, err)
	assert.Equal(t, tinyFrames(), rawStrings(frames))
}

func TestBench(t *testing.T) {
	p := Open(t)
	ns, err := p.BenchEncode(tinyStream(), 3)
	require.NoError(t, err)
	assert.Greater(t, ns, 0.0)

	frames, _ := bigTextFrames(1000)
	nsFrame, mbps, err := p.BenchReduce(frames, 3)
	require.NoError(t, err)
	assert.Greater(t, nsFrame, 0.0)
	assert.Greater(t, mbps, 0.0)

	_, err = p.BenchEncode(raws(`{"type":"text_delta","contentIndex":0,"delta":"x"}`), 2)
	require.ErrorContains(t, err, "Assistant message text_delta event appears before start")
}

func TestBenchStringify(t *testing.T) {
	p := Open(t)
	plain, err := p.BenchEncodeTimes(tinyStream(), 3, false)
	require.NoError(t, err)
	assert.Greater(t, plain.Wall, 0.0)
	assert.GreaterOrEqual(t, plain.CPU, 0.0)
	withJSON, err := p.BenchEncodeTimes(tinyStream(), 3, true)
	require.NoError(t, err)
	assert.Greater(t, withJSON.Wall, 0.0)

	// The request really asks for serialization: the peer echoes the mode.
	line, err := p.RoundTrip([]byte(`{"id":"s","op":"bench","events":[],"iterations":1,"stringify":true}`))
	require.NoError(t, err)
	assert.Contains(t, string(line), `"stringify":true`)

	_, err = p.BenchEncodeTimes(raws(`{"type":"text_delta","contentIndex":0,"delta":"x"}`), 2, true)
	require.ErrorContains(t, err, "Assistant message text_delta event appears before start")

	frames, _ := bigTextFrames(100)
	times, mbps, err := p.BenchReduceTimes(frames, 3)
	require.NoError(t, err)
	assert.Greater(t, times.Wall, 0.0)
	assert.GreaterOrEqual(t, times.CPU, 0.0)
	assert.Greater(t, mbps, 0.0)

	stored, storedMBps, err := p.BenchReduceStoredTimes(frames, 3)
	require.NoError(t, err)
	assert.Greater(t, stored.Wall, 0.0)
	assert.InDelta(t, mbps*times.Wall, storedMBps*stored.Wall, mbps*times.Wall*1e-9, "both modes count the same JSONL bytes")
	_, _, err = p.BenchReduceStoredTimes(raws(`{"type":"text_delta","contentIndex":0,"delta":"x"}`, `{"type":"start","partial":{}}`), 2)
	require.ErrorContains(t, err, "text_delta frame appears before the start frame")
	// The request really asks for the stored mode: the peer reads the field.
	line, err = p.RoundTrip([]byte(`{"id":"r","op":"reduceBench","frames":[],"iterations":1,"stored":1}`))
	require.NoError(t, err)
	assert.Contains(t, string(line), `field \"stored\" must be a boolean`)
}

func TestLargeMessageRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("16 MB round trip skipped under -short")
	}
	p := Open(t)
	frames, text := bigTextFrames(16 << 20)
	require.GreaterOrEqual(t, len(text), 16<<20)
	msg, errMsg, err := p.Reduce(frames)
	require.NoError(t, err)
	require.Empty(t, errMsg)
	want := partial(`[{"type":"text","text":"`+text+`"}]`, "pending")
	require.Equal(t, len(want), len(msg))
	require.True(t, string(msg) == want, "16 MB message bytes differ")

	// The peer is still in step afterwards.
	results, err := p.ParseStreamingJSON(raws(`"[1,2"`))
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, string(results[0]))
}

func TestRequestBytesAreVerbatim(t *testing.T) {
	var b bytes.Buffer
	items := raws(`"<&>\u2028"`, "\"\xff\"", "{\n  \"a\": \"x y\"\n}")
	require.NoError(t, rawArrayField("inputs", items)(&b))
	assert.Equal(t, ",\"inputs\":[\"<&>\\u2028\",\"\xff\",{\"a\":\"x y\"}]", b.String())

	b.Reset()
	err := rawArrayField("events", raws(`{}`, `{"a":`))(&b)
	require.ErrorContains(t, err, "events[1]: not valid JSON")
}

func TestDecideOpen(t *testing.T) {
	unavailable := errors.Join(ErrUnavailable, errors.New("node not found"))
	broken := errors.New("peer: hello: EOF")
	assert.Equal(t, openUse, decideOpen(nil, false))
	assert.Equal(t, openUse, decideOpen(nil, true))
	assert.Equal(t, openSkip, decideOpen(unavailable, false))
	assert.Equal(t, openFail, decideOpen(unavailable, true))
	assert.Equal(t, openFail, decideOpen(broken, false), "a broken peer must never be skipped")
	assert.Equal(t, openFail, decideOpen(broken, true))
}

// recordingTB captures Skip/Fatal instead of stopping the goroutine.
type recordingTB struct {
	testing.TB
	skipped, failed string
}

func (r *recordingTB) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }
func (r *recordingTB) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *recordingTB) Helper()                           {}

func TestOpenWithoutNode(t *testing.T) {
	t.Setenv("PATH", "")
	_, err := Start()
	require.ErrorIs(t, err, ErrUnavailable)

	t.Setenv(RequireEnv, "")
	rec := &recordingTB{TB: t}
	assert.Nil(t, Open(rec))
	assert.Contains(t, rec.skipped, "node not found on PATH")
	assert.Empty(t, rec.failed)

	t.Setenv(RequireEnv, "1")
	rec = &recordingTB{TB: t}
	assert.Nil(t, Open(rec))
	assert.Empty(t, rec.skipped)
	assert.Contains(t, rec.failed, "node not found on PATH")
}

func TestDirFindsPeer(t *testing.T) {
	dir, err := Dir()
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(dir, "corpus/peers/pi-ai"), dir)
	assert.FileExists(t, dir+"/driver.mjs")
	assert.FileExists(t, dir+"/package.json")
}

func TestDirOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(DirEnv, dir)
	got, err := Dir()
	require.NoError(t, err)
	assert.Equal(t, dir, got)

	// An empty directory has no node_modules: unavailable, not broken;
	// the reason names what to run, or that node itself is missing.
	_, err = Start()
	require.ErrorIs(t, err, ErrUnavailable)
	if _, lookErr := exec.LookPath("node"); lookErr == nil {
		assert.ErrorContains(t, err, "npm ci --prefix")
	} else {
		assert.ErrorContains(t, err, "node not found on PATH")
	}
}

func TestModuleRootMissing(t *testing.T) {
	_, err := moduleRoot(t.TempDir())
	assert.ErrorContains(t, err, "no go.mod above")
}
