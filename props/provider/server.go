package provider

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Loopback is a fake provider on 127.0.0.1 that serves rendered streams.
// Each stream is registered under an id and served at /s/<id>/<anything>,
// so a client given base URL /s/<id> may append whatever path its SDK
// uses (/v1/messages, /chat/completions, /responses, /models/…). It answers
// at most maxRequests requests and shuts itself down after lifetime.
type Loopback struct {
	srv         *http.Server
	ln          net.Listener
	url         string
	mu          sync.Mutex
	streams     map[string]Rendered
	paths       map[string]string
	requests    int
	maxRequests int
	stop        *time.Timer
	closeOnce   sync.Once
}

// StartLoopback starts the server on 127.0.0.1 (an explicit IPv4 loopback
// listener: never another interface, never a flag-chosen address).
func StartLoopback(maxRequests int, lifetime time.Duration) (*Loopback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("provider: loopback: listen on 127.0.0.1: %w", err)
	}
	l := &Loopback{streams: map[string]Rendered{}, paths: map[string]string{}, maxRequests: maxRequests,
		ln: ln, url: "http://" + ln.Addr().String()}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve), ReadHeaderTimeout: 30 * time.Second}
	l.stop = time.AfterFunc(lifetime, l.Close)
	go func() {
		if err := l.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			l.Close()
		}
	}()
	return l, nil
}

// Addr is the address the server listens on.
func (l *Loopback) Addr() net.Addr { return l.ln.Addr() }

// Add registers a stream and returns the base URL a client should use.
func (l *Loopback) Add(id string, rd Rendered) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.streams[id] = rd
	return l.url + "/s/" + id
}

// Path returns the request path (and query) the client used for stream id.
func (l *Loopback) Path(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.paths[id]
}

// Close stops the server; it is safe to call more than once.
func (l *Loopback) Close() {
	l.closeOnce.Do(func() {
		l.stop.Stop()
		_ = l.srv.Close() // closes the listener and every connection
	})
}

func (l *Loopback) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/s/")
	id, _, _ := strings.Cut(rest, "/")
	l.mu.Lock()
	l.requests++
	over := l.requests > l.maxRequests
	rd, known := l.streams[id]
	if known {
		l.paths[id] = r.URL.RequestURI()
		delete(l.streams, id) // each stream is served once
	}
	l.mu.Unlock()
	switch {
	case over:
		http.Error(w, `{"error":{"message":"loopback request budget exhausted"}}`, http.StatusServiceUnavailable)
		return
	case !ok || !known:
		http.Error(w, fmt.Sprintf(`{"error":{"message":"no stream %q"}}`, id), http.StatusNotFound)
		return
	}
	if rd.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rd.Status)
		_, _ = w.Write(rd.Body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	prev := 0
	for _, c := range append(append([]int(nil), rd.Chunks...), len(rd.Body)) {
		if c <= prev {
			continue
		}
		if _, err := w.Write(rd.Body[prev:c]); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
		prev = c
	}
	if rd.Abort {
		panic(http.ErrAbortHandler) // drop the connection without ending the response
	}
}
