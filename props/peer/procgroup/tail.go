package procgroup

import "sync"

// Tail is an io.Writer for a child's output that keeps only the last
// limit bytes written to it: enough to quote why a child failed or to
// read its summary, without letting a child that writes without end grow
// the parent's memory. It is safe for concurrent use (exec copies a
// child's output on its own goroutine).
type Tail struct {
	mu    sync.Mutex
	limit int
	buf   []byte
}

// NewTail returns a Tail that keeps the last limit bytes.
func NewTail(limit int) *Tail { return &Tail{limit: limit} }

func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// Bytes is a copy of what the Tail holds.
func (t *Tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}

func (t *Tail) String() string { return string(t.Bytes()) }
