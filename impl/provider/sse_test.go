package provider

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

func scanAll(t *testing.T, r io.Reader) ([]SSEEvent, bool) {
	t.Helper()
	var got []SSEEvent
	clean, err := ScanSSE(r, func(e SSEEvent) error { got = append(got, e); return nil })
	require.NoError(t, err)
	return got, clean
}

func TestScanSSE(t *testing.T) {
	stream := ": comment\r\nevent: a\r\ndata: x\r\ndata:y\r\n\r\ndata: z\n\nevent: only\n\ndata: cut"
	// One byte per read: CRLF pairs and lines split across reads.
	got, clean := scanAll(t, iotest.OneByteReader(strings.NewReader(stream)))
	require.Equal(t, []SSEEvent{{Event: "a", Data: "x\ny"}, {Data: "z"}}, got)
	require.False(t, clean, "a stream ending inside an event is not clean")

	_, clean = scanAll(t, strings.NewReader("data: z\r\r"))
	require.True(t, clean)
}

func TestScanSSEReportsReadErrors(t *testing.T) {
	_, err := ScanSSE(iotest.ErrReader(io.ErrUnexpectedEOF), func(SSEEvent) error { return nil })
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}
