// Package peer drives an implementation of the frameproof stdio protocol v1
// from Go: by default the real pi-ai 1.0.3 frame codec through
// corpus/peers/pi-ai/driver.mjs (node), or any command that speaks the same
// protocol (StartCommand; `frameproof conform --exec CMD`).
//
// Returned frames, messages and parse results are the exact bytes the peer
// printed (JSON.stringify output for pi-ai): they are never decoded and
// re-encoded, so callers can compare them byte for byte with a Go port.
//
// A Peer is meant for one goroutine at a time (requests are strictly
// request/response over one pipe); calls are serialised by a mutex anyway.
package peer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Protocol identity announced in the hello line.
const (
	ProtocolName    = "frameproof-stdio"
	ProtocolVersion = 1
	// PinnedVersion is the pi-ai version corpus/peers/pi-ai/package.json pins.
	PinnedVersion = "1.0.3"
)

// DefaultHelloTimeout bounds how long a starting peer may take to print its
// hello when the caller sets no bound (StartCommand).
const DefaultHelloTimeout = 60 * time.Second

// closeTimeout bounds how long Close waits for the peer to exit after its
// stdin is closed before killing it.
const closeTimeout = 10 * time.Second

// Hello is the first line a peer prints.
type Hello struct {
	Protocol              string `json:"hello"`
	Version               int    `json:"version"`
	Implementation        string `json:"implementation"`
	ImplementationVersion string `json:"implementationVersion"`
}

// ProtocolError is a well-formed response saying the peer rejected the
// request itself (bad JSON, unknown op, missing field) — not a pi-ai error.
type ProtocolError struct {
	Op      string
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("peer: %s: protocol error: %s", e.Op, e.Message)
}

// Peer is one running protocol peer process.
type Peer struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	outR   *os.File // read end of stdout; ours, so Wait never closes it under us
	stderr *procgroup.Tail
	exited chan struct{} // closed when the process has exited and stderr is drained
	wait   error         // cmd.Wait's result, valid once exited is closed
	hello  Hello
	nextID uint64
	broken error // first transport failure; every later call returns it
	closed bool
}

// Start launches `node driver.mjs` in Dir() and checks that it is the pinned
// pi-ai. It returns an error wrapping ErrUnavailable when node or
// node_modules is missing.
func Start() (*Peer, error) {
	return StartContext(context.Background())
}

// StartContext is Start with the peer's whole process group killed when
// ctx is done (an interrupt), the hello wait included.
func StartContext(ctx context.Context) (*Peer, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	return StartInContext(ctx, dir)
}

// StartIn is Start with the peer's directory given (a CLI's --peer-dir).
func StartIn(dir string) (*Peer, error) {
	return StartInContext(context.Background(), dir)
}

// StartInContext is StartIn with the peer's group killed when ctx is done.
func StartInContext(ctx context.Context, dir string) (*Peer, error) {
	node, err := checkInstalled(dir)
	if err != nil {
		return nil, err
	}
	cmd := procgroup.CommandContext(ctx, node, "driver.mjs")
	cmd.Dir = dir
	p, err := StartCommand(cmd)
	if err != nil {
		return nil, err
	}
	if h := p.Hello(); h.Implementation != "pi-ai" || h.ImplementationVersion != PinnedVersion {
		_ = p.Close()
		return nil, fmt.Errorf("peer: start: driver reports %s %s, want pi-ai %s (run: npm ci --prefix %s)",
			h.Implementation, h.ImplementationVersion, PinnedVersion, RelDir)
	}
	return p, nil
}

// StartCommand starts cmd (not yet started; Stdin/Stdout/Stderr unset) and
// reads its hello line, which must announce frameproof-stdio version 1,
// within DefaultHelloTimeout.
func StartCommand(cmd *exec.Cmd) (*Peer, error) {
	return StartCommandWithin(cmd, DefaultHelloTimeout)
}

// StartCommandWithin is StartCommand with the hello wait bounded by
// helloTimeout. cmd runs in its own process group, and every kill (a
// missed hello, Kill, a Close that times out) takes the whole group, so a
// wrapper's child cannot keep the pipes open.
func StartCommandWithin(cmd *exec.Cmd, helloTimeout time.Duration) (*Peer, error) {
	procgroup.Own(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("peer: start %s: %w", cmd.Path, err)
	}
	// An os.Pipe rather than StdoutPipe: Wait closes StdoutPipe's reader, which
	// could drop a last response; this read end stays ours until Close.
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("peer: start %s: %w", cmd.Path, err)
	}
	cmd.Stdout = outW
	tail := procgroup.NewTail(64 << 10)
	cmd.Stderr = tail
	err = cmd.Start()
	_ = outW.Close()
	if err != nil {
		_ = stdin.Close()
		_ = outR.Close()
		return nil, fmt.Errorf("peer: start %s: %w", cmd.Path, err)
	}
	p := &Peer{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(outR, 1<<20), outR: outR,
		stderr: tail, exited: make(chan struct{})}
	go func() {
		p.wait = cmd.Wait()
		close(p.exited)
	}()
	hello, err := p.readHello(helloTimeout)
	if err != nil {
		p.kill()
		return nil, err
	}
	p.hello = hello
	return p, nil
}

func (p *Peer) readHello(helloTimeout time.Duration) (Hello, error) {
	type result struct {
		line []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		line, err := lineio.ReadLine(p.stdout, maxLineBytes)
		done <- result{line, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(helloTimeout):
		p.kill() // closes our read end too, which ends the read above
		<-done
		return Hello{}, fmt.Errorf("peer: hello: no hello line within %s%s", helloTimeout, p.stderrNote())
	}
	if r.err != nil {
		p.awaitExit()
		return Hello{}, fmt.Errorf("peer: hello: %w%s", r.err, p.stderrNote())
	}
	return parseHello(r.line)
}

// parseHello checks the first protocol line.
func parseHello(line []byte) (Hello, error) {
	var h Hello
	if err := json.Unmarshal(line, &h); err != nil {
		return Hello{}, fmt.Errorf("peer: hello: not a JSON object: %w (line %q)", err, truncate(line))
	}
	if h.Protocol != ProtocolName {
		return Hello{}, fmt.Errorf("peer: hello: protocol %q, want %q", h.Protocol, ProtocolName)
	}
	if h.Version != ProtocolVersion {
		return Hello{}, fmt.Errorf("peer: hello: protocol version %d, want %d", h.Version, ProtocolVersion)
	}
	if h.Implementation == "" {
		return Hello{}, errors.New("peer: hello: implementation is empty")
	}
	return h, nil
}

// Hello returns the peer's hello line.
func (p *Peer) Hello() Hello { return p.hello }

// RoundTrip writes one request line (without the trailing newline; it must
// not contain one) and returns the next response line verbatim, without the
// newline. It does not check ids: it is the low-level door for protocol tests.
func (p *Peer) RoundTrip(line []byte) ([]byte, error) {
	if bytes.IndexByte(line, '\n') >= 0 {
		return nil, errors.New("peer: round trip: request line contains a newline")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exchange(append(append([]byte(nil), line...), '\n'))
}

// exchange sends one request line and reads one response line. Any failure
// here desynchronises the stream, so it marks the peer broken.
func (p *Peer) exchange(request []byte) ([]byte, error) {
	if p.closed {
		return nil, errors.New("peer: peer is closed")
	}
	if p.broken != nil {
		return nil, p.broken
	}
	if _, err := p.stdin.Write(request); err != nil {
		return nil, p.failDead(fmt.Errorf("peer: write request: %w", err))
	}
	line, err := lineio.ReadLine(p.stdout, maxLineBytes)
	if err != nil {
		return nil, p.failDead(fmt.Errorf("peer: read response: %w", err))
	}
	return line, nil
}

// maxLineBytes bounds one line read from a peer: a response carries one
// stream's frames or message, far below it; a peer (conform runs any
// implementation) that writes past it without a newline is broken, and
// must not take the harness's memory with it.
const maxLineBytes = 256 << 20

// failDead is fail for a pipe error: the peer is most likely exiting, so give
// it a moment to finish so its stderr (the crash reason) is complete.
func (p *Peer) failDead(err error) error {
	p.awaitExit()
	return p.fail(err)
}

// awaitExit waits briefly for a peer whose pipe broke to exit, so that its
// stderr has been fully copied before it is quoted in an error.
func (p *Peer) awaitExit() {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
}

func (p *Peer) fail(err error) error {
	p.broken = fmt.Errorf("%w%s", err, p.stderrNote())
	return p.broken
}

// call sends a request built by the caller and decodes the response into r,
// checking the echoed id and turning protocolError into *ProtocolError.
func (p *Peer) call(op string, body func(b *bytes.Buffer) error, r reply) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	id := strconv.FormatUint(p.nextID, 10)
	var b bytes.Buffer
	b.WriteString(`{"id":`)
	b.WriteString(id)
	b.WriteString(`,"op":`)
	b.WriteString(strconv.Quote(op))
	if err := body(&b); err != nil {
		return fmt.Errorf("peer: %s: %w", op, err)
	}
	b.WriteString("}\n")
	line, err := p.exchange(b.Bytes())
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, r); err != nil {
		return p.fail(fmt.Errorf("peer: %s: response is not JSON: %w (line %q)", op, err, truncate(line)))
	}
	head := r.head()
	if string(head.ID) != id {
		return p.fail(fmt.Errorf("peer: %s: response id %s, want %s", op, head.ID, id))
	}
	if head.ProtocolError != nil {
		return &ProtocolError{Op: op, Message: *head.ProtocolError}
	}
	return nil
}

// Close ends the peer: stdin is closed so it exits on its own; a peer that
// does not exit within closeTimeout is killed. Close is idempotent.
func (p *Peer) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	_ = p.stdin.Close()
	defer p.outR.Close()
	select {
	case <-p.exited:
		procgroup.Kill(p.cmd) // what the peer left running in its group
		if p.wait != nil && p.broken == nil {
			return fmt.Errorf("peer: close: %w%s", p.wait, p.stderrNote())
		}
		return nil
	case <-time.After(closeTimeout):
		procgroup.Kill(p.cmd)
		<-p.exited
		return fmt.Errorf("peer: close: peer did not exit within %s; killed", closeTimeout)
	}
}

// Kill ends the peer's whole process group at once (a timeout): a request
// blocked on it fails instead of waiting. Close still reaps the process.
func (p *Peer) Kill() {
	procgroup.Kill(p.cmd)
	_ = p.outR.Close() // ends a blocked read even if something outside the group holds the pipe
}

// kill ends a peer that failed to start properly. Closing our read end
// ends a read still waiting on the pipe, even if something outside the
// group holds its write end.
func (p *Peer) kill() {
	_ = p.stdin.Close()
	procgroup.Kill(p.cmd)
	_ = p.outR.Close()
	<-p.exited
}

func (p *Peer) stderrNote() string {
	if s := p.stderr.String(); s != "" {
		return "\npeer stderr:\n" + s
	}
	return ""
}

func truncate(b []byte) []byte {
	const max = 200
	if len(b) > max {
		return b[:max]
	}
	return b
}
