// Package pisubject runs pi's own harness (npm @earendil-works/pi-agent-core
// 0.85.1, pinned in corpus/peers/pi-agent-core) as a simulator subject: a
// Go client of the subject protocol (corpus/peers/pi-agent-core/
// SUBJECT-PROTOCOL.md) over corpus/peers/pi-agent-core/subject-driver.mjs,
// implementing sim/subject.Subject. A crash kills the driver's process
// group (SIGKILL); the next Open starts a fresh process.
package pisubject

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/frameproof/frameproof/props/pirecovery"
	"github.com/frameproof/frameproof/sim/subject"
)

// Protocol identity the driver's hello announces.
const (
	ProtocolName    = "frameproof-subject"
	ProtocolVersion = 1
)

// PlantEnv names the driver's planted protocol-layer defect
// (subject-driver.mjs); tests set it to prove the simulator catches it.
const PlantEnv = "FRAMEPROOF_SUBJECT_PLANT"

// PlantDropWrite makes the driver report one committed transaction without
// its last write.
const PlantDropWrite = "drop-write"

// PlantKeepFrames makes the driver report the first settlement that
// deletes a frame list without that delete (tests only): the committed
// state it describes keeps a settled response's frames, which
// sim/invariants rejects before the lockstep compares the transaction.
const PlantKeepFrames = "keep-frames"

// replyTimeout bounds one request: a driver that never answers is killed.
const replyTimeout = 60 * time.Second

// Options configure the client.
type Options struct {
	// Dir is corpus/peers/pi-agent-core, the driver's folder, with
	// node_modules installed (peer.Ensure(peer.PiAgentCore) returns it).
	Dir string
	// Pi is the peer folder pi's packages load from (the driver's --pi):
	// a pinned release's corpus/peers/pi-agent-core-<version>/ (Release).
	// "": Dir, pi-agent-core 0.85.1.
	Pi string
	// Version, when set, is the pi-agent-core version the driver's hello
	// must report (a driver that loaded another release is refused).
	Version string
	// Env is added to the driver's environment (PlantEnv).
	Env []string
	// Context, when set, kills the driver's process group once it is done
	// (an interrupted campaign leaves no node behind).
	Context context.Context
}

// Client is pi's harness as a subject.
type Client struct {
	opts  Options
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	tail  *procgroup.Tail
	id    int
	Hello map[string]any
}

var _ subject.Subject = (*Client)(nil)

// New returns a client; no process runs until Open.
func New(opts Options) *Client { return &Client{opts: opts} }

// Dir installs the pinned peer if needed and returns its folder.
func Dir() (string, error) { return peer.Ensure(peer.PiAgentCore) }

// Release is the pinned pi-agent-core release version ("": 0.85.1) as a
// subject: the peer folder its driver loads pi from (installed if needed;
// Options.Pi) and the run options under which model/lane commits what
// that release commits (pirecovery.Release: every difference between
// releases is such an option, 0.85.1's behaviour the default).
func Release(version string) (pi string, run subject.Options, err error) {
	if version == "" {
		version = pirecovery.DefaultRelease
	}
	rel, err := pirecovery.ReleaseOf(version)
	if err != nil {
		return "", subject.Options{}, err
	}
	dir, err := peer.Ensure(rel.Peer)
	if err != nil {
		return "", subject.Options{}, err
	}
	return dir, subject.Options{StoredDelayCap: rel.StoredDelayCap, ErrorPatterns: rel.ErrorPatterns}, nil
}

func (c *Client) start() error {
	ctx := c.opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	args := []string{filepath.Join(c.opts.Dir, "subject-driver.mjs")}
	if c.opts.Pi != "" {
		args = append(args, "--pi", c.opts.Pi)
	}
	cmd := procgroup.CommandContext(ctx, "node", args...)
	cmd.Dir = c.opts.Dir
	cmd.Env = append(os.Environ(), c.opts.Env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return fmt.Errorf("pisubject: stdin: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("pisubject: stdout: %w", err)
	}
	c.tail = procgroup.NewTail(2000)
	cmd.Stderr = c.tail
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pisubject: start node: %w", err)
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReaderSize(out, 1<<20)
	line, err := c.readLine()
	if err != nil {
		c.Kill()
		return fmt.Errorf("pisubject: hello: %w", err)
	}
	if err := json.Unmarshal(line, &c.Hello); err != nil || c.Hello["hello"] != ProtocolName {
		c.Kill()
		return fmt.Errorf("pisubject: not a %s driver: %s", ProtocolName, line)
	}
	if v, _ := c.Hello["version"].(float64); int(v) != ProtocolVersion {
		c.Kill()
		return fmt.Errorf("pisubject: protocol version %v, want %d", c.Hello["version"], ProtocolVersion)
	}
	if got, _ := c.Hello["implementationVersion"].(string); c.opts.Version != "" && got != c.opts.Version {
		c.Kill()
		return fmt.Errorf("pisubject: the driver runs pi-agent-core %q, want %s", got, c.opts.Version)
	}
	return nil
}

func (c *Client) readLine() ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		b, err := lineio.ReadLine(c.out, serve.MaxLine) // bounded: a broken driver cannot grow it without end
		ch <- res{b, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("%w (driver stderr: %s)", r.err, c.tail.String())
		}
		return r.b, nil
	case <-time.After(replyTimeout):
		procgroup.Kill(c.cmd)
		return nil, fmt.Errorf("no reply within %v (driver stderr: %s)", replyTimeout, c.tail.String())
	}
}

type reply struct {
	ID    int             `json:"id"`
	OK    bool            `json:"ok"`
	Error string          `json:"error"`
	Value json.RawMessage `json:"value"`
	Obs   subject.Obs     `json:"obs"`
}

// ErrNotRunning is returned by a request made with no process running.
var ErrNotRunning = errors.New("pisubject: no driver process (Open first)")

func (c *Client) do(op string, fields map[string]any) (subject.Obs, error) {
	if c.cmd == nil {
		return subject.Obs{}, ErrNotRunning
	}
	c.id++
	req := map[string]any{"id": c.id, "op": op}
	for k, v := range fields {
		req[k] = v
	}
	b, err := json.Marshal(req)
	if err != nil {
		return subject.Obs{}, err
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return subject.Obs{}, fmt.Errorf("pisubject: %s: write: %w", op, err)
	}
	line, err := c.readLine()
	if err != nil {
		return subject.Obs{}, fmt.Errorf("pisubject: %s: %w", op, err)
	}
	var r reply
	if err := json.Unmarshal(line, &r); err != nil {
		return subject.Obs{}, fmt.Errorf("pisubject: %s: bad reply %q: %w", op, line, err)
	}
	if r.ID != c.id {
		return subject.Obs{}, fmt.Errorf("pisubject: %s: reply id %d, want %d", op, r.ID, c.id)
	}
	if !r.OK {
		return subject.Obs{}, &RequestError{Op: op, Message: r.Error}
	}
	return r.Obs, nil
}

// RequestError is the driver refusing or failing a request.
type RequestError struct{ Op, Message string }

func (e *RequestError) Error() string { return "pisubject: " + e.Op + ": " + e.Message }

// Open starts a process (killing one still running) and opens the session.
func (c *Client) Open(o subject.OpenOptions) (subject.Obs, error) {
	if c.cmd != nil {
		c.Kill()
	}
	if err := c.start(); err != nil {
		return subject.Obs{}, &subject.UnavailableError{Err: err} // no driver, no hello, or another protocol
	}
	f := map[string]any{"session": o.Session, "path": o.Path, "reopen": o.Reopen, "now": o.Now,
		"process": o.Process, "lane": o.Lane, "model": o.Model}
	if o.Retry != nil {
		f["retry"] = o.Retry
	}
	return c.do("open", f)
}

// Start issues a lane call.
func (c *Client) Start(call subject.Call, arg string) (subject.Obs, error) {
	f := map[string]any{}
	switch call {
	case subject.CallCancelQueued:
		f["entryId"] = arg
	case subject.CallDrive:
		f["operationId"] = arg
	default:
		f["text"] = arg
	}
	return c.do(string(call), f)
}

// Script queues the next response's events.
func (c *Client) Script(events []json.RawMessage) error {
	_, err := c.do("script", map[string]any{"events": events})
	return err
}

// ReleaseEvent releases the open stream's next event.
func (c *Client) ReleaseEvent() (subject.Obs, error) { return c.do("event", nil) }

// ReleaseCommit releases parked commit i.
func (c *Client) ReleaseCommit(i int) (subject.Obs, error) {
	return c.do("commit", map[string]any{"index": i})
}

// DropParked drops the parked commits (storage loss).
func (c *Client) DropParked() (subject.Obs, error) { return c.do("drop", nil) }

// Advance sets the driver's clock.
func (c *Client) Advance(now float64) (subject.Obs, error) {
	return c.do("advance", map[string]any{"now": now})
}

// Observe reports without acting.
func (c *Client) Observe() (subject.Obs, error) { return c.do("observe", nil) }

// Kill SIGKILLs the driver's process group and reaps it.
func (c *Client) Kill() error {
	if c.cmd == nil {
		return nil
	}
	procgroup.Kill(c.cmd)
	_ = c.in.Close()
	_ = c.cmd.Wait()
	c.cmd, c.in, c.out = nil, nil, nil
	return nil
}

// Close ends the subject.
func (c *Client) Close() error { return c.Kill() }
