package lane

import (
	"bytes"
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// runtime/drive/response.ts publishResponse: planned tool calls get
// resultEntryIds minted by idGenerator.next(uuidV7Timestamp(responseEntryId)),
// so they carry the response id's timestamp, not the settlement's clock.
func TestToolResultIDsCarryTheResponseTimestamp(t *testing.T) {
	h := newHarness(t, backends[0])
	cfg := h.config()
	cfg.IDs = env.NewUUIDv7(h.clock, bytes.NewReader(bytes.Repeat([]byte{7}, 1024)))
	l, err := Open(cfg)
	require.NoError(t, err)
	h.lane = l
	op := h.start(1)
	a := newAcc()
	script := seq(a.start(), a.toolStart(0, "c1", "read"), a.toolDelta(0, `{}`), a.toolEnd(0, `{}`),
		a.toolStart(1, "c2", "read"), a.toolEnd(1, `{}`), a.done(pi.StopToolUse))
	script.before = func(i int) {
		if i == 1 {
			h.clock.Sleep(5 * time.Second) // the response streams for a while
		}
	}
	h.provider.add(script)
	_, err = l.Step(StepOptions{})
	require.NoError(t, err)
	resp := h.provider.requests[0].ResponseEntryID
	st := h.stateOf(op)
	require.Equal(t, LeafTools, st.At)
	require.Len(t, st.Calls, 2)
	stamp := func(id string) string { return id[:8] + id[9:13] }
	settledAt := cfg.IDs.NewID()
	require.NotEqual(t, stamp(resp), stamp(settledAt), "the clock moved on while the response streamed")
	for _, c := range st.Calls {
		require.Equal(t, stamp(resp), stamp(c.ResultEntryID), "call %d", c.SourceIndex)
		require.NotEqual(t, resp, c.ResultEntryID)
	}
	require.NotEqual(t, st.Calls[0].ResultEntryID, st.Calls[1].ResultEntryID)
}

// response.ts uuidV7Timestamp parses with parseInt(…, 16): the longest hex
// prefix of the 12 timestamp digits; none at all is SessionInvariantError.
func TestUUIDv7TimestampParsesLikeParseInt(t *testing.T) {
	ms, err := uuidV7Timestamp("0190a000-0001-7000-8000-000000000001")
	require.NoError(t, err)
	require.Equal(t, int64(0x0190a0000001), ms)
	ms, err = uuidV7Timestamp("01x")
	require.NoError(t, err)
	require.Equal(t, int64(1), ms)
	_, err = uuidV7Timestamp("resp-1")
	require.EqualError(t, err, "Invalid reserved UUIDv7 resp-1")
	id, err := followerID("0190a000-0000-7abc-8000-000000000009", 0x123456789abc)
	require.NoError(t, err)
	require.Equal(t, "12345678-9abc-7abc-8000-000000000009", id)
	_, err = followerID("not-a-uuid", 1)
	require.Error(t, err)
}
