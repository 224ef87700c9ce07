package picrash

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
	"strconv"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Driver is one long-lived node process running
// corpus/peers/pi-agent-core/crash-driver.mjs: pi's JsonlStorage on a
// recording in-memory file system. Requests are pipelined: a batch is
// written while its answers are read.
type Driver struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

// StartDriver starts crash-driver.mjs from the peer directory dir with node;
// mutate, when not empty, is the driver's --mutate switch.
func StartDriver(ctx context.Context, node, dir, mutate string) (*Driver, error) {
	args := []string{filepath.Join(dir, "crash-driver.mjs")}
	if mutate != "" {
		args = append(args, "--mutate", mutate)
	}
	cmd := procgroup.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("picrash: starting crash-driver.mjs: %w", err)
	}
	return &Driver{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Close ends the driver (stdin closed, then waited for).
func (d *Driver) Close() error {
	_ = d.in.Close()
	return d.cmd.Wait()
}

// FileOp is one file-system call pi made, as the driver recorded it.
type FileOp struct {
	Call int    `json:"call"` // -1: create (or open); i: commit i
	Op   string `json:"op"`   // writeFile, appendFile, renameFile, remove
	Path string `json:"path"`
	To   string `json:"to"`
	Data []byte `json:"data"` // base64 on the wire
}

// CommitOutcome is what pi's commit answered.
type CommitOutcome struct {
	OK       bool    `json:"ok"`
	FirstSeq int64   `json:"firstSeq"`
	Seqs     []int64 `json:"seqs"`
	Error    string  `json:"error"`
}

// RunResult is a workload run on pi's JsonlStorage.
type RunResult struct {
	Log     []FileOp        `json:"log"`
	Commits []CommitOutcome `json:"commits"`
}

// PiState is an opened store's observable state.
type PiState struct {
	Entries []struct {
		ID       string  `json:"id"`
		ParentID *string `json:"parentId"`
		Seq      int64   `json:"seq"`
	} `json:"entries"`
	Usage []struct {
		ID  string `json:"id"`
		Seq int64  `json:"seq"`
	} `json:"usage"`
	Values []struct {
		Namespace string `json:"namespace"`
		Key       string `json:"key"`
		Value     string `json:"value"`
		Seq       int64  `json:"seq"`
	} `json:"values"`
	Lists []struct {
		Namespace string `json:"namespace"`
		Key       string `json:"key"`
		Elements  []struct {
			Value string `json:"value"`
			Seq   int64  `json:"seq"`
		} `json:"elements"`
	} `json:"lists"`
	NextSeq int64 `json:"nextSeq"`
}

// OpenResult is JsonlStorage.open on one crash image.
type OpenResult struct {
	OK    bool              `json:"ok"`
	Error string            `json:"error"`
	Cause string            `json:"cause"`
	State PiState           `json:"state"`
	Files map[string][]byte `json:"files"`
	Log   []FileOp          `json:"log"`
}

type answer struct {
	ID     int    `json:"id"`
	OK     bool   `json:"ok"`
	Helper bool   `json:"helper"`
	Error  string `json:"error"`
}

// roundTrips sends every request and decodes the answers into outs[i], in
// order. Requests are written by a goroutine so a large batch cannot
// deadlock on full pipes.
func (d *Driver) roundTrips(reqs [][]byte, outs []any) error {
	first := d.id + 1
	d.id += len(reqs)
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(d.in, 1<<20)
		for _, r := range reqs {
			if _, err := w.Write(append(r, '\n')); err != nil {
				werr <- err
				return
			}
		}
		werr <- w.Flush()
	}()
	for i := range reqs {
		line, err := lineio.ReadLine(d.out, serve.MaxLine) // a driver's line is bounded as a request is
		if err != nil {
			return fmt.Errorf("picrash: crash-driver.mjs: %w", err)
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			return fmt.Errorf("picrash: crash-driver.mjs printed %.300s", line)
		}
		if a.Helper {
			return errors.New(a.Error)
		}
		if a.ID != first+i {
			return fmt.Errorf("picrash: crash-driver.mjs answered id %d, want %d", a.ID, first+i)
		}
		if err := json.Unmarshal(line, outs[i]); err != nil {
			return fmt.Errorf("picrash: decoding %.300s: %w", line, err)
		}
	}
	return <-werr
}

// Run creates pi's store at path with a fixed header and clock and commits
// each commit in order.
func (d *Driver) Run(path string, commits [][]store.Write) (RunResult, error) {
	b := []byte(`{"id":` + strconv.Itoa(d.id+1) + `,"op":"run","path":`)
	b = store.AppendJSString(b, path)
	b = append(b, `,"now":1000,"header":{"v":4,"kind":"header","id":"s","storageVersion":1,"createdAt":1,"cwd":"/"},"commits":[`...)
	for i, ws := range commits {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, w := range ws {
			if j > 0 {
				b = append(b, ',')
			}
			b = serve.AppendWrite(b, w)
		}
		b = append(b, ']')
	}
	b = append(b, "]}"...)
	var r RunResult
	err := d.roundTrips([][]byte{b}, []any{&r})
	return r, err
}

// OpenAll opens each image (path's content; nil: the file is absent) in a
// fresh JsonlStorage.
func (d *Driver) OpenAll(path string, images [][]byte) ([]OpenResult, error) {
	reqs := make([][]byte, len(images))
	outs := make([]any, len(images))
	res := make([]OpenResult, len(images))
	for i, img := range images {
		files := map[string][]byte{}
		if img != nil {
			files[path] = img
		}
		body, err := json.Marshal(map[string]any{"id": d.id + 1 + i, "op": "open", "path": path, "files": files})
		if err != nil {
			return nil, err
		}
		reqs[i] = body
		outs[i] = &res[i]
	}
	return res, d.roundTrips(reqs, outs)
}
