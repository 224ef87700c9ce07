package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/codec"
	"github.com/frameproof/frameproof/props/peer"
)

// The codec family: frameproof's frame encoder (both APIs) and reducer
// against pi-ai 1.0.3 in node, on the same stream (codec.BenchStream), in
// one run. Node times itself (the peer's bench/reduceBench ops: warm-up,
// then process.hrtime around the loop); the Go side mirrors that loop here.
func init() {
	Register(Family{
		Name:    "codec",
		Summary: "frame encoding (+ JSON) and reduce vs pi-ai 1.0.3 in node",
		Run:     runCodec,
		Shape: func(o Options) []TableShape {
			plan := codecPlanFor(o)
			return shapesOf(len(plan.sizes), codecTables(plan, o.Quick)...)
		},
		Peer: peer.PiAI,
	})
}

// codecPlan is what one run measures: message sizes, the message bytes per
// measurement (iterations = max(1, budget/size), the same on both sides)
// and how many measurements each figure is the best of.
type codecPlan struct {
	sizes   []int
	budget  int
	repeats int
	minTime time.Duration // of one Go measurement (see measureGo)
}

func codecPlanFor(opts Options) codecPlan {
	if opts.Quick {
		return codecPlan{sizes: []int{1 << 10, 16 << 10, 64 << 10}, budget: 256 << 10, repeats: 1, minTime: 10 * time.Millisecond}
	}
	return codecPlan{sizes: []int{1 << 10, 64 << 10, 1 << 20}, budget: 4 << 20, repeats: 5, minTime: 100 * time.Millisecond}
}

func (p codecPlan) iterations(size int) int { return max(1, p.budget/size) }

func runCodec(ctx context.Context, opts Options) (_ []Table, err error) {
	plan := codecPlanFor(opts)
	pr, err := startPeer(ctx, opts.PeerDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if cerr := pr.Close(); cerr != nil && err == nil {
			err = cerr // a peer that did not exit cleanly casts doubt on its figures
		}
	}()
	tables := codecTables(plan, opts.Quick)
	for _, size := range plan.sizes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s, err := newCodecStream(pr, size)
		if err != nil {
			return nil, err
		}
		m, err := measureCodec(pr, s, plan)
		if err != nil {
			return nil, err
		}
		addCodecRows(tables, s, m)
	}
	return tables, nil
}

// startPeer starts the pi-ai peer; ctx done (an interrupt) kills its
// process group, which a terminal's Ctrl-C does not reach.
func startPeer(ctx context.Context, dir string) (*peer.Peer, error) {
	if dir == "" {
		// the pinned peer, installed on first use as every command that
		// runs pi does
		d, err := peer.Ensure(peer.PiAI)
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return peer.StartInContext(ctx, dir)
}

// codecStream is one benchmark stream in every form both sides need.
type codecStream struct {
	size      int
	events    []*pi.Event
	rawEvents []json.RawMessage
	frames    []pi.Frame
	rawFrames []json.RawMessage
	stored    [][]byte // rawFrames as a frame log read back holds them (storedLines)
	logBytes  int      // the frames' JSONL size, as the peer counts it
}

// newCodecStream builds the stream and checks that pi-ai and AppendFrame
// give byte-identical frames for it, so the two sides measure the same work.
func newCodecStream(pr *peer.Peer, size int) (*codecStream, error) {
	s := &codecStream{size: size, events: codec.BenchStream(size)}
	enc, app := frames.NewEncoder(), frames.NewEncoder()
	var appended []string
	for _, ev := range s.events {
		s.rawEvents = append(s.rawEvents, ev.AppendJSON(nil))
		f, err := enc.Encode(ev)
		if err != nil {
			return nil, fmt.Errorf("codec: encode the %d-byte stream: %w", size, err)
		}
		out, framed, err := app.AppendFrame(nil, ev)
		if err != nil {
			return nil, fmt.Errorf("codec: AppendFrame on the %d-byte stream: %w", size, err)
		}
		if framed != (f != nil) {
			return nil, fmt.Errorf("codec: the %d-byte stream: AppendFrame framed %v where Encode's frame is %v", size, framed, f)
		}
		if !framed {
			appended = append(appended, "null")
			continue
		}
		appended = append(appended, string(out))
		s.frames = append(s.frames, *f)
		s.rawFrames = append(s.rawFrames, out)
		s.logBytes += len(out) + 1
	}
	s.stored = storedLines(s.rawFrames, s.logBytes)
	peerFrames, errIndex, errMsg, err := pr.Encode(s.rawEvents)
	if err != nil {
		return nil, err
	}
	if errIndex >= 0 {
		return nil, fmt.Errorf("codec: pi-ai threw at event %d of the %d-byte stream: %s", errIndex, size, errMsg)
	}
	for i, f := range peerFrames {
		if string(f) != appended[i] {
			return nil, fmt.Errorf("codec: the %d-byte stream's frame %d differs: pi-ai %s, frameproof %s", size, i, f, appended[i])
		}
	}
	return s, checkReduced(pr, s)
}

// storedLines is the frame log's lines as a reader of it holds them: one
// buffer of JSONL, the lines slices of it (without their newline, capped
// at it). The frames themselves were allocated one by one among the
// stream's other values, a layout no reader of a log sees (and pi-ai's
// lines, strings the peer makes one after another, do not have either).
func storedLines(frames []json.RawMessage, logBytes int) [][]byte {
	log := make([]byte, 0, logBytes)
	lines := make([][]byte, len(frames))
	for i, f := range frames {
		at := len(log)
		log = append(append(log, f...), '\n')
		lines[i] = log[at : at+len(f) : at+len(f)]
	}
	return lines
}

// checkReduced requires the stored-bytes reduction to give pi-ai's message
// byte for byte, so the reduce table's two sides do the same work.
func checkReduced(pr *peer.Peer, s *codecStream) error {
	want, errMsg, err := pr.Reduce(s.rawFrames)
	if err != nil {
		return err
	}
	if errMsg != "" {
		return fmt.Errorf("codec: pi-ai threw reducing the %d-byte stream: %s", s.size, errMsg)
	}
	m, err := frames.ReduceJSON(s.stored)
	if err != nil {
		return fmt.Errorf("codec: ReduceJSON on the %d-byte stream: %w", s.size, err)
	}
	if got := m.AppendJSON(nil); string(got) != string(want) {
		return fmt.Errorf("codec: the %d-byte stream reduces to %d bytes, pi-ai's message has %d (or differs)", s.size, len(got), len(want))
	}
	got, defined, err := frames.AppendReducedJSON(nil, s.stored)
	if err != nil || !defined {
		return fmt.Errorf("codec: AppendReducedJSON on the %d-byte stream: defined %v, error %v", s.size, defined, err)
	}
	if string(got) != string(want) {
		return fmt.Errorf("codec: AppendReducedJSON writes %d bytes for the %d-byte stream, pi-ai's message has %d (or differs)", len(got), s.size, len(want))
	}
	return nil
}

// cost is a Go-side figure per item (event or frame): wall and CPU
// nanoseconds, and allocations.
type cost struct {
	peer.BenchTimes
	allocs float64
}

// codecFigures are one stream's measurements, per event (encoding) or per
// frame (reduce).
type codecFigures struct {
	piStringify, piEncode, piReduce peer.BenchTimes
	piReduceStored                  peer.BenchTimes
	appendFrame, encodeJSON, encode cost
	reduce, reducedJSON, reduceJSON cost
	reduceParse                     cost
}

// measureCodec takes every figure repeats times, interleaving the two sides
// so that a burst of load on the shared machine hits both, and keeps each
// figure's least-CPU run (wall time from the same run).
func measureCodec(pr *peer.Peer, s *codecStream, plan codecPlan) (codecFigures, error) {
	unset := peer.BenchTimes{Wall: math.Inf(1), CPU: math.Inf(1)}
	m := codecFigures{piStringify: unset, piEncode: unset, piReduce: unset, piReduceStored: unset,
		appendFrame: cost{BenchTimes: unset}, encodeJSON: cost{BenchTimes: unset}, encode: cost{BenchTimes: unset},
		reduce: cost{BenchTimes: unset}, reducedJSON: cost{BenchTimes: unset}, reduceJSON: cost{BenchTimes: unset}, reduceParse: cost{BenchTimes: unset}}
	n, events := plan.iterations(s.size), len(s.events)
	goPass := func(c *cost, items int, pass func()) error {
		r, err := measureGo(items, n, plan.minTime, pass)
		if err == nil && r.CPU < c.CPU {
			*c = r
		}
		return err
	}
	keep := func(best *peer.BenchTimes, t peer.BenchTimes) {
		if t.CPU < best.CPU {
			*best = t
		}
	}
	appendPass, encodeJSONPass, encodePass := passAppendFrame(s.events), passEncodeJSON(s.events), passEncode(s.events)
	reducePass, reduceParsePass := func() { _, _ = frames.Reduce(s.frames) }, passReduceParse(s.stored)
	reducedJSONPass, reduceJSONPass := passReducedJSON(s.stored), passReduceJSON(s.stored)
	nFrames := len(s.frames)
	for r := 0; r < plan.repeats; r++ {
		t, err := pr.BenchEncodeTimes(s.rawEvents, n, true)
		if err != nil {
			return m, err
		}
		keep(&m.piStringify, t)
		if err := goPass(&m.appendFrame, events, appendPass); err != nil {
			return m, err
		}
		if err := goPass(&m.encodeJSON, events, encodeJSONPass); err != nil {
			return m, err
		}
		if t, err = pr.BenchEncodeTimes(s.rawEvents, n, false); err != nil {
			return m, err
		}
		keep(&m.piEncode, t)
		if err := goPass(&m.encode, events, encodePass); err != nil {
			return m, err
		}
		if t, _, err = pr.BenchReduceStoredTimes(s.rawFrames, n); err != nil {
			return m, err
		}
		keep(&m.piReduceStored, t)
		if err := goPass(&m.reducedJSON, nFrames, reducedJSONPass); err != nil {
			return m, err
		}
		if err := goPass(&m.reduceJSON, nFrames, reduceJSONPass); err != nil {
			return m, err
		}
		if err := goPass(&m.reduceParse, nFrames, reduceParsePass); err != nil {
			return m, err
		}
		if t, _, err = pr.BenchReduceTimes(s.rawFrames, n); err != nil {
			return m, err
		}
		keep(&m.piReduce, t)
		if err := goPass(&m.reduce, nFrames, reducePass); err != nil {
			return m, err
		}
	}
	return m, nil
}

// measureGo mirrors the peer's loop: max(1, iterations/10) untimed warm-up
// passes, then at least iterations timed passes, continued until minTime
// has passed (a Go pass over a small stream takes microseconds, too short
// to time alone on a busy machine). Allocations are counted over the timed
// passes.
func measureGo(items, iterations int, minTime time.Duration, pass func()) (cost, error) {
	for i := 0; i < max(1, iterations/10); i++ {
		pass()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0, err := processCPU()
	if err != nil {
		return cost{}, err
	}
	start := time.Now()
	passes := 0
	for ; passes < iterations || time.Since(start) < minTime; passes++ {
		pass()
	}
	elapsed := time.Since(start)
	cpu1, err := processCPU()
	if err != nil {
		return cost{}, err
	}
	runtime.ReadMemStats(&after)
	total := float64(passes) * float64(items)
	return cost{
		BenchTimes: peer.BenchTimes{Wall: float64(elapsed.Nanoseconds()) / total, CPU: float64((cpu1 - cpu0).Nanoseconds()) / total},
		allocs:     float64(after.Mallocs-before.Mallocs) / total,
	}, nil
}

// The passes run one fresh encoder over the stream (as the peer does). The
// stream was checked by newCodecStream, so they cannot fail.

// passAppendFrame writes every frame into one reused buffer, as a frame
// log's writer does.
func passAppendFrame(events []*pi.Event) func() {
	buf := make([]byte, 0, 4096)
	return func() {
		enc := frames.NewEncoder()
		for _, ev := range events {
			buf, _, _ = enc.AppendFrame(buf[:0], ev)
		}
	}
}

// passEncodeJSON is the API before AppendFrame: Encode, then the frame's
// AppendJSON into a reused buffer (the cheapest way it could serialize).
func passEncodeJSON(events []*pi.Event) func() {
	buf := make([]byte, 0, 4096)
	return func() {
		enc := frames.NewEncoder()
		for _, ev := range events {
			if f, _ := enc.Encode(ev); f != nil {
				buf = f.AppendJSON(buf[:0])
			}
		}
	}
}

func passEncode(events []*pi.Event) func() {
	return func() {
		enc := frames.NewEncoder()
		for _, ev := range events {
			_, _ = enc.Encode(ev)
		}
	}
}

// passReducedJSON is the stored-bytes round trip: AppendReducedJSON from
// the frame log's lines to the message's JSON, into a reused buffer, by a
// reused StoredReducer (which keeps its text buffers likewise).
func passReducedJSON(stored [][]byte) func() {
	buf := make([]byte, 0, 4096)
	var r frames.StoredReducer
	return func() {
		buf, _, _ = r.AppendReducedJSON(buf[:0], stored)
	}
}

// passReduceJSON is the same round trip through the message as a value:
// ReduceJSON over the frame log's lines, then the message's JSON into a
// reused buffer.
func passReduceJSON(stored [][]byte) func() {
	buf := make([]byte, 0, 4096)
	return func() {
		if m, err := frames.ReduceJSON(stored); err == nil {
			buf = m.AppendJSON(buf[:0])
		}
	}
}

// passReduceParse is the same round trip by the general path alone:
// pi.ParseJSON of every line, ReduceValues, the message's JSON.
func passReduceParse(stored [][]byte) func() {
	buf := make([]byte, 0, 4096)
	vs := make([]pi.JSONValue, len(stored))
	return func() {
		for i, line := range stored {
			vs[i], _ = pi.ParseJSON(string(line))
		}
		if m, err := frames.ReduceValues(vs); err == nil {
			buf = m.AppendJSON(buf[:0])
		}
	}
}

// The three tables' indexes in codecTables' result.
const (
	tableSerialize = iota
	tableEncode
	tableReduce
)

func codecTables(plan codecPlan, quick bool) []Table {
	notes := []string{
		fmt.Sprintf("`frameproof bench --family codec`: one text block in 1–16 byte deltas. ns are CPU time per item (user + system, every thread of the process: Go's GC workers, V8's helpers), because this machine is shared and load inflates wall time; each figure is the least-CPU of %d runs of max(1, %d KB / message) passes after warm-up (Go: and at least %s), run interleaved with the other side; node timed in-process by the pi-ai peer; Go %s, GOMAXPROCS %d. Ratios are pi-ai time / frameproof time; \"wall\" ratios are from the same runs.",
			plan.repeats, plan.budget>>10, plan.minTime, runtime.Version(), runtime.GOMAXPROCS(0)),
	}
	if load := loadAverage(); load != "" {
		notes = append(notes, fmt.Sprintf("Load average (1, 5, 15 min) when the run started: %s on %d CPUs.", load, runtime.NumCPU()))
	}
	if quick {
		notes = append(notes, "--quick: smoke-run sizes and iterations, not figures.")
	}
	return []Table{
		tableSerialize: {
			Title: "Codec: encode and serialize one frame per event",
			Header: []string{"message", "events", "pi-ai encode + JSON.stringify ns/event",
				"AppendFrame ns/event", "allocs/event", "pi-ai / AppendFrame", "wall",
				"Encode + AppendJSON ns/event", "allocs/event", "pi-ai / Encode + AppendJSON", "wall"},
			Notes: append(notes, "AppendFrame writes into one reused buffer; Encode + AppendJSON is the API before it, serializing into a reused buffer too. allocs/event averages over the whole stream, start frame included."),
		},
		tableEncode: {
			Title:  "Codec: encoder alone (no serialization)",
			Header: []string{"message", "pi-ai encode ns/event", "Encode ns/event", "allocs/event", "pi-ai / Encode", "wall"},
			Notes:  notes,
		},
		tableReduce: {
			Title: "Codec: reduce stored frames",
			Header: []string{"message", "frames", "pi-ai stored ns/frame", "pi-ai MB/s (wall)",
				"AppendReducedJSON ns/frame", "MB/s (wall)", "allocs/frame", "pi-ai / AppendReducedJSON", "wall",
				"ReduceJSON + AppendJSON ns/frame", "ParseJSON + ReduceValues ns/frame", "pi-ai / ParseJSON + ReduceValues",
				"pi-ai parsed ns/frame", "Reduce parsed ns/frame", "pi-ai / Reduce"},
			Notes: append(notes,
				"\"stored\" is the same work on both sides, from the frame log's bytes to the message's bytes: pi-ai JSON.parses each stored line (the frame's JSON.stringify), runs reduceAssistantMessageFrames and JSON.stringifies the message (the peer's reduceBench with stored: true); frameproof runs frames.StoredReducer.AppendReducedJSON over the same lines, slices of one JSONL buffer as a reader of the log holds them (one StoredReducer for every pass, which keeps its text buffers, blocks and message object as the pass keeps its output buffer) (a byte-level path for frames in the encoder's shape: delta frames, whose literals it copies into the message's JSON as they are when they are JSON.stringify's own; the start frame, whose partial it writes from its bytes when they are JSON.stringify's own and its content is empty; text and thinking start frames; pi.ParseJSON + ValueReducer.Apply for the rest; a list that is a start frame, one text or thinking block's start and its deltas, as this stream's is, is written without a reducer, the literals copied straight into the message's JSON). Both sides' messages are checked byte-identical first. ReduceJSON + AppendJSON is the round trip through the message as a value (the byte-level path decodes each literal, AppendJSON encodes the text again); ParseJSON + ReduceValues is the round trip without the byte-level path.",
				"\"parsed\" is the older comparison: pi-ai's reducer over frames already parsed in node, against the typed frames.Reduce over []pi.Frame (no parsing, no serialization on either side).",
				"MB/s counts the frames' JSONL bytes (one JSON line plus newline per frame)."),
		},
	}
}

func addCodecRows(t []Table, s *codecStream, m codecFigures) {
	size := byteSizeLabel(s.size)
	t[tableSerialize].Rows = append(t[tableSerialize].Rows, []string{size, fmt.Sprint(len(s.events)),
		nsCell(m.piStringify.CPU),
		nsCell(m.appendFrame.CPU), allocCell(m.appendFrame.allocs), Ratio(m.piStringify.CPU, m.appendFrame.CPU), Ratio(m.piStringify.Wall, m.appendFrame.Wall),
		nsCell(m.encodeJSON.CPU), allocCell(m.encodeJSON.allocs), Ratio(m.piStringify.CPU, m.encodeJSON.CPU), Ratio(m.piStringify.Wall, m.encodeJSON.Wall)})
	t[tableEncode].Rows = append(t[tableEncode].Rows, []string{size,
		nsCell(m.piEncode.CPU), nsCell(m.encode.CPU), allocCell(m.encode.allocs), Ratio(m.piEncode.CPU, m.encode.CPU), Ratio(m.piEncode.Wall, m.encode.Wall)})
	mbps := func(wallNsPerFrame float64) string {
		return fmt.Sprintf("%.0f", float64(s.logBytes)/float64(len(s.frames))/wallNsPerFrame*1e3)
	}
	t[tableReduce].Rows = append(t[tableReduce].Rows, []string{size, fmt.Sprint(len(s.frames)),
		nsCell(m.piReduceStored.CPU), mbps(m.piReduceStored.Wall),
		nsCell(m.reducedJSON.CPU), mbps(m.reducedJSON.Wall), allocCell(m.reducedJSON.allocs),
		Ratio(m.piReduceStored.CPU, m.reducedJSON.CPU), Ratio(m.piReduceStored.Wall, m.reducedJSON.Wall),
		nsCell(m.reduceJSON.CPU), nsCell(m.reduceParse.CPU), Ratio(m.piReduceStored.CPU, m.reduceParse.CPU),
		nsCell(m.piReduce.CPU), nsCell(m.reduce.CPU), Ratio(m.piReduce.CPU, m.reduce.CPU)})
}

func byteSizeLabel(size int) string {
	if size >= 1<<20 {
		return fmt.Sprintf("%d MB", size>>20)
	}
	return fmt.Sprintf("%d KB", size>>10)
}

func nsCell(ns float64) string {
	if ns < 100 {
		return fmt.Sprintf("%.1f", ns)
	}
	return fmt.Sprintf("%.0f", ns)
}

func allocCell(a float64) string { return fmt.Sprintf("%.4f", a) }

// loadAverage is the first three fields of /proc/loadavg ("" where there is
// none): how busy the shared machine was, which the figures depend on.
func loadAverage() string {
	f, err := os.Open("/proc/loadavg")
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(b))
	if len(fields) < 3 {
		return ""
	}
	return strings.Join(fields[:3], ", ")
}
