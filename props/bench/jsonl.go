package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

func init() {
	Register(Family{
		Name:      "jsonl",
		Summary:   "JSONL open and compaction vs node's line-by-line JSON.parse of the same pi-format file",
		NeedsNode: true,
		Shape: func(o Options) []TableShape {
			return shapesOf(len(jsonlSizes(o.Quick)), jsonlTable())
		},
		Run: runJSONL,
	})
}

// nodeParseFloor is the floor of pi's JsonlStorage.open: read the file as
// text, split it on "\n" and JSON.parse every line, nothing else. It prints
// the fastest of `reps` samples of `inner` parses each, per parse, in wall
// and in CPU (user+system, all threads) nanoseconds, measured inside node so
// process start-up is excluded.
const nodeParseFloor = `
const fs = require("node:fs");
const [path, reps, inner] = process.argv.slice(-3);
let wall = Infinity, cpu = Infinity, lines = 0;
for (let r = 0; r < Number(reps); r++) {
	const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
	for (let i = 0; i < Number(inner); i++) {
		const parts = fs.readFileSync(path, "utf8").slice(0, -1).split("\n");
		let n = 0;
		for (const line of parts) if (JSON.parse(line) !== null) n++;
		lines = n;
	}
	const c = process.cpuUsage(c0);
	wall = Math.min(wall, Number(process.hrtime.bigint() - t0) / Number(inner));
	cpu = Math.min(cpu, (c.user + c.system) * 1000 / Number(inner));
}
process.stdout.write(JSON.stringify({ wall, cpu, lines }) + "\n");
`

// jsonlSize is one row of the table: a file of Lines lines, timed Reps times.
type jsonlSize struct{ Lines, Reps int }

// inner is how many opens one timed sample makes, divided out afterwards:
// process CPU time advances in scheduler ticks (a few ms), so a sample must
// be long against a tick for the small file's CPU figure to mean anything.
func (s jsonlSize) inner() int { return max(1, 200_000/s.Lines) }

func jsonlSizes(quick bool) []jsonlSize {
	if quick {
		return []jsonlSize{{10_000, 3}}
	}
	return []jsonlSize{{10_000, 7}, {100_000, 3}, {1_000_000, 2}}
}

func runJSONL(ctx context.Context, opts Options) ([]Table, error) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w: node not found on PATH", peer.ErrUnavailable)
	}
	dir, err := os.MkdirTemp("", "frameproof-bench-jsonl-")
	if err != nil {
		return nil, fmt.Errorf("jsonl: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)

	t := jsonlTable()
	for _, size := range jsonlSizes(opts.Quick) {
		row, err := jsonlRow(ctx, nodeBin, dir, size)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return []Table{t}, nil
}

// jsonlTable is the family's table before its rows.
func jsonlTable() Table {
	return Table{
		Title: "JSONL open vs node's line-by-line JSON.parse (the floor of pi's open)",
		Header: []string{"lines", "MB", "frameproof open CPU ns/line", "node JSON.parse CPU ns/line", "open vs node (CPU)",
			"frameproof open wall ns/line", "node wall ns/line", "frameproof compact CPU ns/line"},
		Notes: []string{
			"pi-format session files (user entry, intent, one frame per line, settlement array) generated in the run; " +
				"each side's best of several samples in its own process (node's start-up excluded), a sample opening the file max(1, 200k / lines) times so that it spans many CPU-time ticks. CPU is user+system time " +
				"of all the process's threads (getrusage / process.cpuUsage), the stable figure on a shared machine; " +
				"\"open vs node\" is node's CPU time / frameproof's (above 1× means frameproof is faster). " +
				"Command: `go run ./cmd/frameproof bench --family jsonl`.",
		},
	}
}

func jsonlRow(ctx context.Context, nodeBin, dir string, size jsonlSize) ([]string, error) {
	path := filepath.Join(dir, fmt.Sprintf("session-%d.jsonl", size.Lines))
	content := GenerateSession(size.Lines)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return nil, fmt.Errorf("jsonl: write %s: %w", path, err)
	}
	records := float64(size.Lines - 1) // the header is not a transaction
	ours, err := bestOf(size.Reps, size.inner(), func() error { return openOnce(path) })
	if err != nil {
		return nil, err
	}
	compact, err := compactOnce(path, size.Reps, size.inner())
	if err != nil {
		return nil, err
	}
	node, err := nodeFloor(ctx, nodeBin, path, size.Reps, size.inner())
	if err != nil {
		return nil, err
	}
	if node.Lines != size.Lines {
		return nil, fmt.Errorf("jsonl: node parsed %d lines of %s, want %d", node.Lines, path, size.Lines)
	}
	lines := float64(size.Lines)
	ns := func(d time.Duration, per float64) string { return fmt.Sprintf("%.0f", float64(d.Nanoseconds())/per) }
	return []string{
		strconv.Itoa(size.Lines),
		fmt.Sprintf("%.1f", float64(len(content))/1e6),
		ns(ours.CPU, records),
		ns(node.CPU, lines),
		Ratio(float64(node.CPU)/lines, float64(ours.CPU)/records),
		ns(ours.Wall, records),
		ns(node.Wall, lines),
		ns(compact.CPU, records),
	}, nil
}

// jsonlCost is one measurement: wall-clock and process CPU time.
type jsonlCost struct{ Wall, CPU time.Duration }

// bestOf times reps samples of inner calls of fn and returns the fastest
// sample's wall and CPU time per call (each sample after a GC, so one
// sample's garbage is not charged to the next).
func bestOf(reps, inner int, fn func() error) (jsonlCost, error) {
	best := jsonlCost{Wall: 1<<63 - 1, CPU: 1<<63 - 1}
	for range reps {
		runtime.GC()
		start, cpu0 := time.Now(), cpuTime()
		for range inner {
			if err := fn(); err != nil {
				return jsonlCost{}, err
			}
		}
		best.CPU = min(best.CPU, (cpuTime()-cpu0)/time.Duration(inner))
		best.Wall = min(best.Wall, time.Since(start)/time.Duration(inner))
	}
	return best, nil
}

func openOnce(path string) error {
	s, err := jsonl.Open(env.Production(), path, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		return fmt.Errorf("jsonl: open %s: %w", path, err)
	}
	return s.Close()
}

// compactOnce times Compact (without fsync) on an open store, best of reps
// samples of inner compactions. Compaction rewrites the file, so it runs on
// a copy.
func compactOnce(path string, reps, inner int) (jsonlCost, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return jsonlCost{}, fmt.Errorf("jsonl: read %s: %w", path, err)
	}
	cp := path + ".compact"
	if err := os.WriteFile(cp, content, 0o644); err != nil {
		return jsonlCost{}, fmt.Errorf("jsonl: write %s: %w", cp, err)
	}
	s, err := jsonl.Open(env.Production(), cp, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		return jsonlCost{}, fmt.Errorf("jsonl: open %s: %w", cp, err)
	}
	d, err := bestOf(reps, inner, s.Compact)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return d, err
}

// nodeResult is what nodeParseFloor prints.
type nodeResult struct {
	Wall, CPU time.Duration
	Lines     int
}

// nodeFloorTimeout bounds one node run: the 1M-line file parses in a few
// seconds per repetition, so a run past this is stuck, not slow.
const nodeFloorTimeout = 10 * time.Minute

// nodeFloor runs nodeParseFloor on path in its own process group, killed as
// a group when ctx ends or nodeFloorTimeout passes.
func nodeFloor(ctx context.Context, node, path string, reps, inner int) (nodeResult, error) {
	ctx, cancel := context.WithTimeout(ctx, nodeFloorTimeout)
	defer cancel()
	cmd := procgroup.CommandContext(ctx, node, "-e", nodeParseFloor, "--", path, strconv.Itoa(reps), strconv.Itoa(inner))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nodeResult{}, fmt.Errorf("jsonl: node JSON.parse floor: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var out struct {
		Wall  float64 `json:"wall"`
		CPU   float64 `json:"cpu"`
		Lines int     `json:"lines"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nodeResult{}, fmt.Errorf("jsonl: node JSON.parse floor: output %q: %w", stdout.String(), err)
	}
	return nodeResult{Wall: time.Duration(out.Wall), CPU: time.Duration(out.CPU), Lines: out.Lines}, nil
}

// GenerateSession returns a pi-format JSONL v4 session of exactly lines
// lines: the header, then turns of a user entry, the intent transaction,
// one streamed frame per line and the settlement transaction (assistant
// entry, usage row, tip, frame-list delete, operation state), as pi's lane
// commits them. A file cut mid-turn ends with an orphaned frame list.
func GenerateSession(lines int) []byte {
	const framesPerTurn = 20
	const t0 = 1767225600000
	b := make([]byte, 0, lines*190)
	b = append(b, `{"v":4,"kind":"header","id":"019a0000-0000-7000-8000-000000000001","storageVersion":1,"createdAt":1767225600000,"cwd":"/work"}`+"\n"...)
	seq, parent := 1, "null"
	for n, turn := 1, 0; n < lines; turn++ {
		ts := strconv.Itoa(t0 + turn)
		op, user, resp := fmt.Sprintf("op%d", turn), fmt.Sprintf(`"u%d"`, turn), fmt.Sprintf(`"r%d"`, turn)
		frames := op + ":r" + strconv.Itoa(turn)
		turnLines := []string{
			fmt.Sprintf(`{"kind":"entry","type":"message","id":%s,"parentId":%s,"message":{"role":"user","content":[{"type":"text","text":"Please summarise section %d of the design."}],"timestamp":%s},"seq":%d,"timestamp":%s}`,
				user, parent, turn, ts, seq, ts),
			fmt.Sprintf(`[{"kind":"value","op":"set","seq":%d,"namespace":"pi.op.state","key":"%s","value":{"at":"assistant.effect_pending","responseEntryId":%s}},{"kind":"list","op":"append","seq":%d,"namespace":"pi.pending.assistant_frame","key":"%s","value":{"type":"start","partial":{"role":"assistant","content":[],"stopReason":"pending"}}}]`,
				seq+1, op, resp, seq+2, frames),
		}
		seq += 3
		for i := range framesPerTurn {
			turnLines = append(turnLines, fmt.Sprintf(`{"kind":"list","op":"append","seq":%d,"namespace":"pi.pending.assistant_frame","key":"%s","value":{"type":"text_delta","contentIndex":0,"delta":"streamed words %d of the reply, "}}`,
				seq, frames, i))
			seq++
		}
		turnLines = append(turnLines, fmt.Sprintf(`[{"kind":"entry","type":"message","id":%s,"parentId":%s,"message":{"role":"assistant","content":[{"type":"text","text":"The section describes the store."}],"api":"anthropic-messages","provider":"anthropic","model":"claude","usage":{"input":30,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":50,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":%s},"seq":%d,"timestamp":%s},`+
			`{"kind":"usage","id":"us%d","usage":{"input":30,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":50,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"entryId":%s,"adjustment":false,"seq":%d},`+
			`{"kind":"value","op":"set","seq":%d,"namespace":"pi.branch.tip","key":"main","value":%s},`+
			`{"kind":"list","op":"delete","seq":%d,"namespace":"pi.pending.assistant_frame","key":"%s"},`+
			`{"kind":"value","op":"set","seq":%d,"namespace":"pi.op.state","key":"%s","value":{"at":"settled"}}]`,
			resp, user, ts, seq, ts, turn, resp, seq+1, seq+2, resp, seq+3, frames, seq+4, op))
		seq += 5
		parent = resp
		for _, l := range turnLines {
			if n == lines {
				break
			}
			b = append(b, l...)
			b = append(b, '\n')
			n++
		}
	}
	return b
}
