// Package storeconform certifies anyone's store: frameproof's own store
// suite (impl/store/storetest's cases) and kills at every commit boundary,
// run over the frameproof-store stdio protocol (impl/store/serve documents
// it) against an external process that serves a store. `frameproof serve
// store` is one such server; corpus/peers/pi-agent-core/store-driver.mjs
// serves pi's own JsonlStorage and MemoryStorage. `frameproof conform
// --suite store --exec CMD` prints the verdicts.
//
// The server is a process the suite starts, SIGKILLs and restarts on the
// same directory ("{dir}" in its command line is a fresh directory per
// case), so a durable store's kills are real process deaths.
package storeconform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Hello is a server's first line.
type Hello struct {
	Protocol              string `json:"hello"`
	Version               int    `json:"version"`
	Implementation        string `json:"implementation"`
	ImplementationVersion string `json:"implementationVersion"`
	Backend               string `json:"backend"`
	// Durable: a new process on the same directory reopens what the last
	// one committed (the kill cases run only then).
	Durable bool `json:"durable"`
	// Faults are the storage faults the server's "fault" op arms (impl/
	// store/serve's Hello.Faults): the storage-fault case runs only then.
	Faults []string `json:"faults"`
}

// CallError is the store's refusal of a call ({"error":{"message"}}): the
// error pi's Storage method threw.
type CallError struct{ Message string }

func (e *CallError) Error() string { return e.Message }

// ProtocolError is a request the server called malformed.
type ProtocolError struct{ Message string }

func (e *ProtocolError) Error() string { return "protocol error: " + e.Message }

// TransportError is a server that died, hung, or answered out of step.
type TransportError struct{ Err error }

func (e *TransportError) Error() string { return e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// Subject is the command serving the store under test.
type Subject struct {
	// Argv is the command; "{dir}" in any word is the case's directory.
	Argv []string
	// Env is the child's environment (nil: the parent's).
	Env []string
	// CallTimeout bounds the hello and every call (0: 30 s); a server that
	// exceeds it is killed and the case fails.
	CallTimeout time.Duration
}

// proc is one running server.
type proc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan []byte
	quit    chan struct{} // closed when the server is ended: the reader stops
	quitOne sync.Once
	readErr error // set before lines is closed
	stderr  *procgroup.Tail
	exited  chan struct{}
	hello   Hello
	nextID  int
	limit   time.Duration
	mu      sync.Mutex
	dead    error
}

const maxResponse = 256 << 20

func start(ctx context.Context, s Subject, dir string) (*proc, error) {
	if len(s.Argv) == 0 {
		return nil, errors.New("storeconform: no command")
	}
	argv := make([]string, len(s.Argv))
	for i, a := range s.Argv {
		argv[i] = strings.ReplaceAll(a, "{dir}", dir)
	}
	cmd := procgroup.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = s.Env
	p := &proc{cmd: cmd, lines: make(chan []byte, 4), quit: make(chan struct{}), stderr: procgroup.NewTail(4000), exited: make(chan struct{}), limit: s.CallTimeout}
	if p.limit <= 0 {
		p.limit = 30 * time.Second
	}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("storeconform: start %s: %w", argv[0], err)
	}
	go func() {
		r := bufio.NewReaderSize(out, 64<<10)
		for {
			line, err := lineio.ReadLine(r, maxResponse)
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case p.lines <- line:
				case <-p.quit:
					return
				}
			}
			if err != nil {
				p.readErr = err
				close(p.lines)
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	line, err := p.next()
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("storeconform: no hello: %w", err)
	}
	if err := json.Unmarshal(line, &p.hello); err != nil || p.hello.Protocol != serve.ProtocolName {
		p.kill()
		return nil, fmt.Errorf("storeconform: not a %s hello: %.200s", serve.ProtocolName, line)
	}
	if p.hello.Version != serve.ProtocolVersion {
		p.kill()
		return nil, fmt.Errorf("storeconform: protocol version %d, want %d", p.hello.Version, serve.ProtocolVersion)
	}
	return p, nil
}

// next waits for one output line, at most the call timeout.
func (p *proc) next() ([]byte, error) {
	timer := time.NewTimer(p.limit)
	defer timer.Stop()
	select {
	case line, ok := <-p.lines:
		if !ok {
			return nil, p.deadErr(p.readErr)
		}
		return line, nil
	case <-timer.C:
		p.kill()
		return nil, fmt.Errorf("no answer within %s (killed)", p.limit)
	}
}

func (p *proc) deadErr(err error) error {
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
	}
	msg := "the server's output ended"
	if err != nil && err != io.EOF {
		msg = err.Error()
	}
	if st := p.cmd.ProcessState; st != nil {
		msg += " (" + st.String() + ")"
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		msg += ": " + tail
	}
	return errors.New(msg)
}

// call sends one request and decodes its result into out (nil: discard).
func (p *proc) call(op string, body []byte, out any) error {
	if p.dead != nil {
		return p.dead
	}
	p.nextID++
	id := p.nextID
	var req bytes.Buffer
	fmt.Fprintf(&req, `{"id":%d,"op":%q`, id, op)
	if len(body) > 0 {
		req.WriteByte(',')
		req.Write(body)
	}
	req.WriteString("}\n")
	if _, err := p.stdin.Write(req.Bytes()); err != nil {
		p.dead = &TransportError{fmt.Errorf("%s: write request: %w", op, p.deadErr(err))}
		return p.dead
	}
	line, err := p.next()
	if err != nil {
		p.dead = &TransportError{fmt.Errorf("%s: %w", op, err)}
		return p.dead
	}
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
		ProtocolError *string `json:"protocolError"`
	}
	if err := json.Unmarshal(line, &resp); err != nil || string(resp.ID) != fmt.Sprint(id) {
		p.dead = &TransportError{fmt.Errorf("%s: response out of step (want id %d): %.300s", op, id, line)}
		p.kill()
		return p.dead
	}
	switch {
	case resp.ProtocolError != nil:
		return &ProtocolError{*resp.ProtocolError}
	case resp.Error != nil:
		return &CallError{resp.Error.Message}
	case out != nil:
		if err := json.Unmarshal(resp.Result, out); err != nil {
			return &TransportError{fmt.Errorf("%s: bad result %.300s: %w", op, resp.Result, err)}
		}
	}
	return nil
}

// send writes a request without waiting for its answer (the kill-mid-commit
// case kills the server right after).
func (p *proc) send(op string, body []byte) error {
	p.nextID++
	_, err := fmt.Fprintf(p.stdin, `{"id":%d,"op":%q,%s}`+"\n", p.nextID, op, body)
	return err
}

// kill SIGKILLs the server's process group and waits for it.
func (p *proc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	procgroup.Kill(p.cmd)
	p.quitOne.Do(func() { close(p.quit) })
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
	}
	if p.dead == nil {
		p.dead = &TransportError{errors.New("the server was killed")}
	}
}

// close ends stdin (the protocol's end of input) and waits for a clean
// exit; a server that does not exit in time is killed.
func (p *proc) close() error {
	_ = p.stdin.Close()
	defer p.quitOne.Do(func() { close(p.quit) })
	select {
	case <-p.exited:
	case <-time.After(p.limit):
		p.kill()
		return fmt.Errorf("the server did not exit within %s of the end of its input (killed)", p.limit)
	}
	if st := p.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("the server exited with %s at the end of its input: %s", st, strings.TrimSpace(p.stderr.String()))
	}
	return nil
}
