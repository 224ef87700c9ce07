package provider

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// The fake provider listens on 127.0.0.1 only, serves each stream once,
// answers at most maxRequests requests and stops by itself.
func TestLoopbackIsLocalBoundedAndStopsItself(t *testing.T) {
	l, err := StartLoopback(2, time.Hour)
	require.NoError(t, err)
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	require.True(t, ok, "%T", l.Addr())
	require.Equal(t, "127.0.0.1", addr.IP.String())

	base := l.Add("a", Rendered{Status: http.StatusOK, Body: []byte("data: x\n\n"), Chunks: []int{3}})
	code, body := get(t, base+"/v1/messages?x=1")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "data: x\n\n", body)
	require.Equal(t, "/s/a/v1/messages?x=1", l.Path("a"))

	code, _ = get(t, base+"/v1/messages") // served once
	require.Equal(t, http.StatusNotFound, code)
	base = l.Add("b", Rendered{Status: http.StatusOK, Body: []byte("data: y\n\n")})
	code, body = get(t, base)
	require.Equal(t, http.StatusServiceUnavailable, code, "third request is over the budget of 2")
	require.Contains(t, body, "budget exhausted")

	short, err := StartLoopback(10, 20*time.Millisecond)
	require.NoError(t, err)
	defer short.Close()
	require.Eventually(t, func() bool {
		c, err := net.Dial("tcp", short.Addr().String())
		if err == nil {
			_ = c.Close()
		}
		return err != nil
	}, 10*time.Second, 10*time.Millisecond, "loopback still accepts connections after its lifetime")
}
