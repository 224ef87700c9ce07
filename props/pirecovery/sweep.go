// Package pirecovery compares frameproof's crash recovery with pi's own at
// every commit boundary of scripted pi runs.
//
// The pi side is corpus/peers/pi-agent-core/recovery-sweep.mjs: it runs pi's
// harness over a JSONL session, takes the file after each commit k as the
// crash image, reopens it in a fresh pi harness (JsonlSessionRepo.open +
// lane.resume at a fixed clock, counter ids) and records every line pi
// appends until its first provider call, retry wait or resume's return, and
// which of them is pi's recovery transaction (the one committed after pi's
// message_end with recovery: true).
//
// The Go side compares, record for record and byte for byte:
//   - pi's recovery transaction with what impl/sessionrecovery (frameproof
//     recover --now) would commit for the same image at the same instant;
//   - every line pi's reopen appended with what impl/lane, opened on a copy
//     of the image and stepped as pi's resume drives (one deferred permit,
//     no retry wait), commits up to its own first provider call.
package pirecovery

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Script is the sweep's file in the pi-agent-core peer folder.
const Script = "recovery-sweep.mjs"

// The clock and ids the script fixes: runs start at RunT0; every reopen
// reads ReopenT and mints ids ReopenIDPrefix + 12 hex digits from 1.
const (
	RunT0          = 1_767_225_600_000
	ReopenT        = RunT0 + 3_600_000
	ReopenIDPrefix = "0199a000-0000-7000-9000-"
)

// Point is one crash point as the script prints it.
type Point struct {
	Run string `json:"run"`
	K   int    `json:"k"`
	Of  int    `json:"of"`
	// Crashed is the crash image: the session file after commit K.
	Crashed string `json:"crashed"`
	// Reopen holds the lines pi's fresh harness appended, in order.
	Reopen []string `json:"reopen"`
	// Recovery indexes pi's recovery transaction in Reopen, or is -1.
	Recovery int `json:"recovery"`
	// Cut is what ended the reopen: provider, retry_wait, resume or error.
	Cut     string  `json:"cut"`
	Detail  string  `json:"detail"`
	Harness Harness `json:"harness"`
}

// Harness is the pi harness options of the run (held by pi's process, not
// the file): what a reopening implementation needs to continue it.
type Harness struct {
	Retry struct {
		Enabled     bool    `json:"enabled"`
		MaxRetries  int     `json:"maxRetries"`
		BaseDelayMs float64 `json:"baseDelayMs"`
		// MaxAgentDelayMs is the run's cap, when its retry option names one
		// (0.87.1's DEFAULT_RETRY_POLICY does)
		MaxAgentDelayMs *float64 `json:"maxAgentDelayMs,omitempty"`
	} `json:"retry"`
	StreamOptions json.RawMessage `json:"streamOptions"`
}

// Summary is the script's last line.
type Summary struct {
	Runs       int    `json:"runs"`
	Points     int    `json:"points"`
	Recoveries int    `json:"recoveries"`
	Version    string `json:"version"`
}

// Options select what the script sweeps.
type Options struct {
	Runs  []string // run names; empty: all
	Every int      // keep every N-th crash point of a run and its last (0 or 1: all)
	// PiDir is the peer folder pi's packages load from (the script's --pi);
	// "": the script's own folder, pi-agent-core 0.85.1.
	PiDir string
}

// ErrEnvironment marks a failure to run the script at all (node missing,
// the script crashing, unreadable output).
var ErrEnvironment = errors.New("pirecovery: environment")

// RunScript runs node on the sweep in the folder peerDir (the 0.85.1
// peer's, which holds the script) and returns its points.
func RunScript(ctx context.Context, peerDir string, opts Options) ([]Point, Summary, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, Summary{}, fmt.Errorf("%w: node not found on PATH", ErrEnvironment)
	}
	peerDir, err = filepath.Abs(peerDir)
	if err != nil {
		return nil, Summary{}, fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	args := []string{filepath.Join(peerDir, Script)}
	if opts.PiDir != "" {
		piDir, err := filepath.Abs(opts.PiDir)
		if err != nil {
			return nil, Summary{}, fmt.Errorf("%w: %v", ErrEnvironment, err)
		}
		args = append(args, "--pi", piDir)
	}
	if len(opts.Runs) > 0 {
		args = append(args, "--runs", strings.Join(opts.Runs, ","))
	}
	if opts.Every > 1 {
		args = append(args, "--every", fmt.Sprint(opts.Every))
	}
	cmd := procgroup.CommandContext(ctx, node, args...)
	cmd.Dir = peerDir
	var out bytes.Buffer
	stderr := procgroup.NewTail(2000)
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return nil, Summary{}, fmt.Errorf("%w: node %s: %v: %s", ErrEnvironment, Script, err, strings.TrimSpace(stderr.String()))
	}
	return Parse(&out)
}

// Parse reads the script's output: point lines, then one summary line.
func Parse(r io.Reader) ([]Point, Summary, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	var pts []Point
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte(`{"summary":`)) {
			var s struct{ Summary Summary }
			if err := json.Unmarshal(line, &s); err != nil {
				return nil, Summary{}, fmt.Errorf("%w: summary line: %v", ErrEnvironment, err)
			}
			return pts, s.Summary, nil
		}
		var p Point
		if err := json.Unmarshal(line, &p); err != nil {
			return nil, Summary{}, fmt.Errorf("%w: point line %d: %v", ErrEnvironment, len(pts)+1, err)
		}
		pts = append(pts, p)
	}
	if err := sc.Err(); err != nil {
		return nil, Summary{}, fmt.Errorf("%w: read: %v", ErrEnvironment, err)
	}
	return nil, Summary{}, fmt.Errorf("%w: the sweep printed no summary line", ErrEnvironment)
}

// Records splits one committed line into its records' exact bytes (a line
// of one write is a bare object, of several a JSON array).
func Records(line string) ([]json.RawMessage, error) {
	b := []byte(line)
	if len(b) == 0 || b[0] != '[' {
		return []json.RawMessage{json.RawMessage(b)}, nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("pirecovery: split line: %w", err)
	}
	return out, nil
}
