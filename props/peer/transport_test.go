package peer

import (
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests use tiny sh scripts as misbehaving peers; they need no node.

const goodHello = `{"hello":"frameproof-stdio","version":1,"implementation":"fake","implementationVersion":"0"}`

func shPeer(t *testing.T, script string) (*Peer, error) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh not available")
	}
	p, err := StartCommand(exec.Command(sh, "-c", script))
	if p != nil {
		t.Cleanup(func() { _ = p.Close() })
	}
	return p, err
}

func TestParseHelloRejectsOtherProtocols(t *testing.T) {
	h, err := parseHello([]byte(goodHello))
	require.NoError(t, err)
	assert.Equal(t, Hello{Protocol: ProtocolName, Version: 1, Implementation: "fake", ImplementationVersion: "0"}, h)

	for line, want := range map[string]string{
		`{"hello":"other","version":1,"implementation":"x"}`:            `protocol "other", want "frameproof-stdio"`,
		`{"hello":"frameproof-stdio","version":2,"implementation":"x"}`: `protocol version 2, want 1`,
		`{"hello":"frameproof-stdio","version":1}`:                      `implementation is empty`,
		`{"id":1,"frames":[]}`:                                          `protocol "", want "frameproof-stdio"`,
		`Listening on port 80`:                                          `not a JSON object`,
	} {
		_, err := parseHello([]byte(line))
		assert.ErrorContains(t, err, want, line)
	}
}

func TestStartCommandNeedsHello(t *testing.T) {
	_, err := shPeer(t, `echo boom >&2; exit 3`)
	require.ErrorContains(t, err, "peer: hello: EOF")
	assert.ErrorContains(t, err, "boom", "stderr tail is reported")

	_, err = shPeer(t, `echo '{"hello":"frameproof-stdio","version":9,"implementation":"x"}'; cat >/dev/null`)
	assert.ErrorContains(t, err, "protocol version 9, want 1")
}

func TestPeerCrashBreaksPeer(t *testing.T) {
	p, err := shPeer(t, `echo '`+goodHello+`'; read line; echo dying >&2; exit 1`)
	require.NoError(t, err)
	assert.Equal(t, "fake", p.Hello().Implementation)
	_, _, _, err = p.Encode(nil)
	require.ErrorContains(t, err, "peer: read response: EOF")
	assert.ErrorContains(t, err, "dying")
	_, err2 := p.ParseStreamingJSON(nil)
	assert.Equal(t, err, err2, "a broken peer keeps failing with the first error")
}

func TestResponseIDMismatchBreaksPeer(t *testing.T) {
	p, err := shPeer(t, `echo '`+goodHello+`'; read line; echo '{"id":99,"frames":[]}'; cat >/dev/null`)
	require.NoError(t, err)
	_, _, _, err = p.Encode(nil)
	require.ErrorContains(t, err, "peer: encode: response id 99, want 1")
}

func TestResponseShapeChecked(t *testing.T) {
	p, err := shPeer(t, `echo '`+goodHello+`'
read l; echo '{"id":1,"frames":[null]}'
read l; echo '{"id":2,"frames":[],"error":{"index":1,"message":"m"}}'
read l; echo '{"id":3}'
read l; echo '{"id":4,"results":[]}'
read l; echo '{"id":5,"frames":[null,{"b":2}],"error":{"index":2,"message":"pi says no"}}'
cat >/dev/null`)
	require.NoError(t, err)
	ev := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{}`)}
	_, _, _, err = p.Encode(ev)
	assert.ErrorContains(t, err, "1 frames for 2 events")
	_, _, _, err = p.Encode(ev)
	assert.ErrorContains(t, err, "error index 1 does not follow the 0 frames")
	_, _, err = p.Reduce(nil)
	assert.ErrorContains(t, err, "neither message nor error")
	_, err = p.ParseStreamingJSON([]json.RawMessage{json.RawMessage(`""`)})
	assert.ErrorContains(t, err, "0 results for 1 inputs")
	frames, idx, msg, err := p.Encode(append(ev, json.RawMessage(`{}`)))
	require.NoError(t, err)
	assert.Equal(t, 2, idx)
	assert.Equal(t, "pi says no", msg)
	assert.Equal(t, []string{"null", `{"b":2}`}, rawStrings(frames))
}

func TestClosedPeerRefusesCalls(t *testing.T) {
	p, err := shPeer(t, `echo '`+goodHello+`'; cat >/dev/null`)
	require.NoError(t, err)
	require.NoError(t, p.Close())
	require.NoError(t, p.Close(), "Close is idempotent")
	_, err = p.ParseStreamingJSON(nil)
	assert.ErrorContains(t, err, "peer: peer is closed")
}
