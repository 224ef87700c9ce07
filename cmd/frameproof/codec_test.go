package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func codecRun(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const cliPartial = `{"role":"assistant","content":[{"type":"text","text":"Hi😀"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}`

var cliEvents = strings.Join([]string{
	`{"type":"start","partial":` + cliPartial + `}`,
	`{"type":"text_start","contentIndex":0,"partial":` + cliPartial + `}`,
	`{"type":"text_delta","contentIndex":0,"delta":"Hi","partial":` + cliPartial + `}`,
	`{"type":"text_delta","contentIndex":0,"delta":"😀<&>!","partial":` + cliPartial + `}`,
	`{"type":"done","reason":"stop","message":` + cliPartial + `}`,
}, "\n") + "\n"

const cliFrames = `{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}}
{"type":"text_start","contentIndex":0,"content":{"type":"text","text":"Hi😀"}}
null
{"type":"text_delta","contentIndex":0,"delta":"<&>!"}
null
`

func TestEncodeGolden(t *testing.T) {
	code, out, errOut := codecRun(cliEvents, "encode")
	require.Equal(t, exitPass, code, errOut)
	require.Equal(t, cliFrames, out)
}

func TestReduceGolden(t *testing.T) {
	code, out, errOut := codecRun(cliFrames, "reduce")
	require.Equal(t, exitPass, code, errOut)
	require.Equal(t, `{"role":"assistant","content":[{"type":"text","text":"Hi😀<&>!"}],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"pending","timestamp":1}`+"\n", out)

	code, out, _ = codecRun(`{"type":"text_delta","contentIndex":0,"delta":"x"}`+"\n", "reduce")
	require.Equal(t, exitPass, code)
	require.Equal(t, "null\n", out)
}

func TestCodecErrorsNameLineAndUsePiMessages(t *testing.T) {
	lines := strings.Split(cliEvents, "\n")
	code, _, errOut := codecRun(lines[0]+"\n"+lines[2]+"\n", "encode")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof encode: line 2: Assistant message text block 0 has not started\n", errOut)

	code, _, errOut = codecRun(lines[0]+"\n\n"+lines[0]+"\n", "encode")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof encode: line 3: Assistant message stream contains more than one start event\n", errOut)

	code, _, errOut = codecRun("{not json\n", "encode")
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "line 1: pi: invalid JSON")

	fr := strings.Split(cliFrames, "\n")
	code, _, errOut = codecRun(fr[0]+"\n"+fr[3]+"\n", "reduce")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof reduce: line 2: text_delta frame has no started block at index 0\n", errOut)

	code, _, errOut = codecRun(fr[0]+"\n"+`{"type":"text_start","contentIndex":0}`+"\n", "reduce")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof reduce: line 2: Cannot read properties of undefined (reading 'type')\n", errOut)

	code, _, errOut = codecRun(fr[0]+"\n"+`{"type":"text_start","contentIndex":0}`+"\n", "reduce", "--strict")
	require.Equal(t, exitFail, code)
	require.Contains(t, errOut, "line 2: pi: decode $.content: expected object, got undefined")

	code, _, _ = codecRun("", "encode", "extra")
	require.Equal(t, exitUsage, code)
}

// A line over --max-line stops encode and reduce before the rest of it is
// read: an endless line (a wrong file, /dev/zero) fails fast and bounded.
func TestCodecBoundsItsLines(t *testing.T) {
	for _, name := range []string{"encode", "reduce"} {
		var out, errb bytes.Buffer
		in := &countingReader{r: strings.NewReader(strings.Repeat("x", 1<<20))}
		code := dispatch([]string{name, "--max-line", "1000"}, in, &out, &errb)
		assert.Equal(t, exitFail, code, name)
		assert.Equal(t, "frameproof "+name+": line 1: line too long: more than --max-line 1000 bytes\n", errb.String())
		assert.Less(t, in.n, 1<<17, "%s read %d bytes of a line limited to 1000", name, in.n)
	}
	// A line of exactly the limit (plus its newline) is accepted.
	line := `{"type":"start","partial":{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":0}}`
	var out, errb bytes.Buffer
	code := dispatch([]string{"encode", "--max-line", strconv.Itoa(len(line))}, strings.NewReader(line+"\n"), &out, &errb)
	assert.Equal(t, exitPass, code, errb.String())
}

// pi-ai utils/assistant-message-frame.ts reduceAssistantMessageFrames: an
// unknown frame type is skipped and a missing delta concatenates as
// "undefined"; --strict reports both instead.
func TestReduceReadsStoredFramesLikePiAI(t *testing.T) {
	fr := strings.Split(cliFrames, "\n")
	in := fr[0] + "\n" + fr[1] + "\n" + `{"type":"citation","contentIndex":0,"url":"u"}` + "\n" +
		`{"type":"text_delta","contentIndex":0}` + "\n"
	code, out, errOut := codecRun(in, "reduce")
	require.Equal(t, exitPass, code, errOut)
	require.Contains(t, out, `"content":[{"type":"text","text":"Hi😀undefined"}]`)

	code, _, errOut = codecRun(in, "reduce", "--strict")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof reduce: line 3: pi: decode $.type: unknown frame type \"citation\"\n", errOut)

	code, _, _ = codecRun(in, "reduce", "--bogus")
	require.Equal(t, exitUsage, code)
}

// pi-ai utils/assistant-message-frame.js AssistantMessageFrameEncoder.encode:
// of a done or error event it reads the type alone (done: "appears before
// start" or terminal; error: terminal), so an ill-typed reason or result
// encodes to null as pi-ai's does.
func TestEncodeReadsOnlyTheTypeOfTerminalEvents(t *testing.T) {
	lines := strings.Split(cliEvents, "\n")
	for _, term := range []string{
		`{"type":"done","reason":7,"message":"not a message"}`,
		`{"type":"error","reason":null,"error":{"role":5}}`,
		`{"type":"done"}`,
	} {
		code, out, errOut := codecRun(lines[0]+"\n"+term+"\n", "encode")
		require.Equal(t, exitPass, code, errOut)
		require.Equal(t, strings.SplitAfter(cliFrames, "\n")[0]+"null\n", out, term)
	}
	code, _, errOut := codecRun(`{"type":"done","reason":7,"message":"x"}`+"\n", "encode")
	require.Equal(t, exitFail, code)
	require.Equal(t, "frameproof encode: line 1: Assistant message done event appears before start\n", errOut)
}
