package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"time"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// ProtocolName and ProtocolVersion identify the external adapter protocol.
const (
	ProtocolName    = "frameproof-provider"
	ProtocolVersion = 1
)

// streamTimeout bounds one stream of an external adapter.
const streamTimeout = 60 * time.Second

// ExecSubject drives an external adapter process over the JSONL stdio
// protocol (PROTOCOL.md) against a loopback server.
type ExecSubject struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	// readErr is why the output reader stopped early (a line over its
	// 256 MiB bound, a read error); written before lines is closed.
	readErr error
	server  *Loopback
	next    int
	Hello   map[string]any
	// deadline ends the adapter's lifetime: no wait (the hello included)
	// runs past it.
	deadline time.Time
}

// maxAdapterLine bounds one line of an adapter's output (an event stream's
// largest event, JSON-encoded). A var so a test can reach it cheaply.
var maxAdapterLine = 256 << 20

// StartExec starts argv as an external adapter and a loopback server for it
// (bounded to maxStreams requests and lifetime).
func StartExec(argv []string, dir string, maxStreams int, lifetime time.Duration) (*ExecSubject, error) {
	return StartExecContext(context.Background(), argv, dir, maxStreams, lifetime)
}

// StartExecContext is StartExec with the adapter's whole process group
// killed when ctx is done (an interrupt): a wait for its hello or a stream
// then ends at once with an error.
func StartExecContext(ctx context.Context, argv []string, dir string, maxStreams int, lifetime time.Duration) (*ExecSubject, error) {
	if len(argv) == 0 {
		return nil, errors.New("provider: exec: empty command")
	}
	// Its own process group, killed as one: a wrapper's child (npx, a
	// script) must not outlive the adapter or hold its pipes open.
	cmd := procgroup.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("provider: exec: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("provider: exec: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("provider: exec %s: %w", argv[0], err)
	}
	s := &ExecSubject{name: "exec", cmd: cmd, stdin: stdin, lines: make(chan string, 256), deadline: time.Now().Add(lifetime)}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, min(64<<10, maxAdapterLine)), maxAdapterLine)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		s.readErr = sc.Err()
		close(s.lines)
	}()
	line, err := s.readLine(streamTimeout)
	if err != nil {
		procgroup.Kill(cmd) // it will not answer: no grace period
		s.Close()
		return nil, fmt.Errorf("provider: exec: no hello: %w", err)
	}
	if err := json.Unmarshal([]byte(line), &s.Hello); err != nil || s.Hello["hello"] != ProtocolName {
		procgroup.Kill(cmd)
		s.Close()
		return nil, fmt.Errorf("provider: exec: bad hello line %q", line)
	}
	if impl, ok := s.Hello["implementation"].(string); ok {
		s.name = "exec:" + impl
		if v, ok := s.Hello["implementationVersion"].(string); ok {
			s.name += "@" + v
		}
	}
	if s.server, err = StartLoopback(maxStreams, lifetime); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Name implements Subject.
func (s *ExecSubject) Name() string { return s.name }

func (s *ExecSubject) readLine(timeout time.Duration) (string, error) {
	if left := time.Until(s.deadline); left < timeout {
		timeout = max(0, left)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case line, ok := <-s.lines:
		if !ok && s.readErr != nil {
			return "", fmt.Errorf("reading the adapter's output: %w", s.readErr)
		}
		if !ok {
			return "", errors.New("adapter closed its output")
		}
		return line, nil
	case <-timer.C:
		return "", fmt.Errorf("no output within %s", timeout.Round(100*time.Millisecond))
	}
}

// Run implements Subject (the events of RunPi, converted).
func (s *ExecSubject) Run(wire impl.Wire, rd Rendered) ([]impl.Event, error) {
	pes, err := s.RunPi(wire, rd)
	if err != nil {
		return nil, err
	}
	out := make([]impl.Event, len(pes))
	for i, e := range pes {
		if out[i], err = impl.EventFromPi(e); err != nil {
			return nil, fmt.Errorf("provider: exec: event %d: %w", i, err)
		}
	}
	return out, nil
}

// RunPi implements PiSubject: it serves rd on the loopback server, asks the
// adapter to stream from it and decodes each reported event with
// impl/provider.DecodePiEvent (pi.DecodeStreamEvent, which ignores what pi-ai's
// encoder does not read, such as the providers' streaming scratch fields).
func (s *ExecSubject) RunPi(wire impl.Wire, rd Rendered) ([]*pi.Event, error) {
	raw, err := s.RunPiRaw(wire, rd)
	if err != nil {
		return nil, err
	}
	events := make([]*pi.Event, len(raw))
	for i, line := range raw {
		if events[i], err = impl.DecodePiEvent(line); err != nil {
			return nil, fmt.Errorf("provider: exec: stream %d event %d: %w", s.next, i, err)
		}
	}
	return events, nil
}

// RunPiRaw is RunPi without decoding: each event exactly as the adapter
// wrote it (for pi-ai, JSON.stringify of the event at push time, scratch
// fields included).
func (s *ExecSubject) RunPiRaw(wire impl.Wire, rd Rendered) ([]json.RawMessage, error) {
	s.next++
	id := strconv.Itoa(s.next)
	base := s.server.Add(id, rd)
	req, _ := json.Marshal(map[string]any{"id": s.next, "op": "stream", "wire": string(wire), "baseUrl": base,
		"apiKey": "fuzz-key", "model": Meta.Model, "provider": Meta.Provider})
	if _, err := s.stdin.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("provider: exec: write request %s: %w", id, err)
	}
	var events []json.RawMessage
	for {
		line, err := s.readLine(streamTimeout)
		if err != nil {
			return nil, fmt.Errorf("provider: exec: stream %s: %w", id, err)
		}
		var resp struct {
			ID            json.RawMessage `json:"id"`
			Event         json.RawMessage `json:"event"`
			End           bool            `json:"end"`
			ProtocolError string          `json:"protocolError"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			return nil, fmt.Errorf("provider: exec: stream %s: bad line %q: %w", id, line, err)
		}
		if string(resp.ID) != id {
			return nil, fmt.Errorf("provider: exec: stream %s: line for id %s", id, resp.ID)
		}
		switch {
		case resp.ProtocolError != "":
			return nil, fmt.Errorf("provider: exec: stream %s: protocol error: %s", id, resp.ProtocolError)
		case resp.End:
			return events, nil
		}
		if len(resp.Event) == 0 {
			return nil, fmt.Errorf("provider: exec: stream %s: line without event, end or protocolError: %q", id, line)
		}
		events = append(events, resp.Event)
	}
}

// Close ends the adapter process and the loopback server.
func (s *ExecSubject) Close() {
	if s.server != nil {
		s.server.Close()
	}
	_ = s.stdin.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		procgroup.Kill(s.cmd)
		<-done
	}
	procgroup.Kill(s.cmd) // whatever the adapter left running in its group
}
