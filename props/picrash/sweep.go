// Package picrash runs frameproof's crash-image sweep on pi's own store:
// pi's JsonlStorage (pi-agent-core 0.85.1, session/jsonl/storage.js) takes
// its file system as a parameter, so corpus/peers/pi-agent-core/
// crash-driver.mjs hands it a recording one and reports every call with its
// bytes. The sweep replays that log into faults.FS, the page-cache model of
// props/crash's SweepJSONL (nothing pi writes is ever fsynced: its
// FileSystem interface has no fsync), crashes at every file-system
// operation under every crash decision choice.Enumerate reaches (prefix and
// subset modes, torn writes, zero and garbage tails, lost directory
// operations), opens each distinct image with a fresh JsonlStorage and
// checks it with props/crash's Oracle, the same prefix oracle frameproof's
// JSONL store is held to.
package picrash

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/faults"
	"github.com/frameproof/frameproof/impl/store"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/props/crash"
	"github.com/frameproof/frameproof/sim/choice"
)

// Expect is what the checker holds pi's store to.
type Expect int

const (
	// ExpectDurable is frameproof's promise (props/crash SweepJSONL): every
	// acknowledged commit survives a crash, and the file always opens.
	ExpectDurable Expect = iota
	// ExpectPi is what pi's store can promise without fsync: acknowledged
	// is not durable. A crash may keep any commit prefix, lose the file or
	// leave one pi refuses (no complete header, or a hole of unsynced
	// blocks lost out of order); these are counted, not failed. Everything
	// else still fails: an image whose bytes are a prefix of what pi wrote
	// (plus a torn or junk tail) must open to exactly the commits whose
	// lines it holds whole, with the torn tail cut off and the file
	// repaired to its complete lines; an image that opens is never a
	// half-applied commit or anything but a commit prefix.
	ExpectPi
)

// Config is one sweep.
type Config struct {
	Seed      uint64 // workload i uses crash.NewGen(Seed+i)
	Workloads int
	Commits   int // per workload (default 6)
	// ImagesPerPoint bounds the crash decisions enumerated at one crash
	// point in each crash mode (default 300).
	ImagesPerPoint int
	Expect         Expect
	Faults         faults.Options // zero: faults.AllFaults
	// Repair also crashes inside pi's torn-tail repair on open (writeFile
	// <path>.tmp, renameFile over <path>): each torn image becomes the
	// durable disk, pi's repair is replayed on it and crashed at every
	// operation, and each result must open to the state the image opened
	// to. Nothing of that state was lost to the crash before; losing it
	// now is the repair's doing.
	Repair bool
}

// Stats is what a sweep explored and what pi's store did.
type Stats struct {
	Workloads, CrashPoints int
	Crashes                int // crash decisions tried
	Distinct               int // distinct disk images (faults.FS.Image)
	Subset                 int // ... made by subset crashes
	Checked                int // (image, oracle) pairs checked
	Opened                 int // checks where pi opened the image
	// Checks where an acknowledged commit was lost, and the largest number
	// of acknowledged commits one image lost.
	AckedLost, MaxAckedLost int
	Gone                    int // ... the session file was absent
	NoHeader                int // ... pi refused: no complete header line
	Holed                   int // ... pi refused an image with a hole
	// Repair sweep (Config.Repair): distinct repairs (torn images' whole
	// lines) crashed, crash images of
	// the repair checked, and those that lost durable commits.
	Repaired, RepairChecked, RepairLost int
	Failures                            []string
	// Refusals counts pi's refusals by message, line numbers as <n>.
	Refusals map[string]int
	// Examples: the first image of each kind of loss, for the finding.
	Examples map[string]string
}

func (s *Stats) fail(format string, args ...any) {
	if len(s.Failures) < 10 {
		s.Failures = append(s.Failures, fmt.Sprintf(format, args...))
	}
}

func (s *Stats) example(kind, what string) {
	if s.Examples == nil {
		s.Examples = map[string]string{}
	}
	if _, ok := s.Examples[kind]; !ok {
		s.Examples[kind] = what
	}
}

var lineNumber = regexp.MustCompile(`line [0-9]+`)

// SessionPath is the session file of every workload.
const SessionPath = "/data/session.jsonl"

// job is one crash image to check against one crash point's oracle.
type job struct {
	point   *pointInfo
	image   []byte // the file's content (nil when empty or absent)
	crash   string
	present bool
	where   string // "" : from the crash point and crash
}

// pointInfo is what the process had done at one crash point.
type pointInfo struct {
	seed     uint64
	point    int
	oracle   *crash.Oracle
	acked    int    // states acknowledged (lines of acknowledged commits)
	visible  []byte // the file as the process saw it (page cache)
	lineEnds []int  // end offset of the header and of each commit line in visible
	cut      int    // the call the crash cut off (-1: create; len: none)
}

// Sweep runs cfg on the driver d.
func Sweep(ctx context.Context, d *Driver, cfg Config) (Stats, error) {
	if cfg.Commits <= 0 {
		cfg.Commits = 6
	}
	if cfg.ImagesPerPoint <= 0 {
		cfg.ImagesPerPoint = 100
	}
	if cfg.Faults == (faults.Options{}) {
		cfg.Faults = faults.AllFaults
	}
	var st Stats
	seen := map[uint64]bool{}
	for i := range cfg.Workloads {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		seed := cfg.Seed + uint64(i)
		wl := crash.NewGen(seed).Workload(cfg.Commits)
		writes := make([][]store.Write, len(wl))
		for j, ws := range wl {
			writes[j] = crash.ToStore(ws)
		}
		run, err := d.Run(SessionPath, writes)
		if err != nil {
			return st, err
		}
		if len(run.Commits) != len(wl) {
			return st, fmt.Errorf("picrash: driver answered %d commits of %d", len(run.Commits), len(wl))
		}
		st.Workloads++
		whole := faults.NewFSWith(choice.Fixed(0), cfg.Faults)
		replay(whole, run.Log)
		total := whole.Ops()
		var jobs []job
		checked := map[[3]uint64]bool{}
		for p := 0; p <= total; p++ {
			st.CrashPoints++
			fsys := faults.NewFSWith(choice.Fixed(0), cfg.Faults)
			fsys.CrashAfter(p)
			done := replay(fsys, run.Log)
			info, err := pointOracle(cfg.Expect, seed, p, wl, run, done)
			if err != nil {
				st.fail("workload seed %d, crash point %d: %v", seed, p, err)
				continue
			}
			var verr error
			info.visible, verr = fsys.ReadFile(SessionPath)
			if p == total && verr != nil {
				// Every image of this workload would be "gone", which
				// ExpectPi counts rather than fails: a driver writing
				// elsewhere must not pass.
				st.fail("workload seed %d: after the whole run %s does not exist: %v", seed, SessionPath, verr)
			}
			info.lineEnds = lineEnds(run.Log, done)
			enumerate(fsys, cfg, func(g *faults.FS, rep faults.CrashReport) {
				st.Crashes++
				if !seen[rep.Image] {
					seen[rep.Image] = true
					st.Distinct++
					if rep.Mode == faults.ModeSubset {
						st.Subset++
					}
				}
				key := [3]uint64{rep.Image, uint64(info.acked), uint64(info.cut + 1)}
				if checked[key] {
					return
				}
				checked[key] = true
				img, err := g.ReadFile(SessionPath)
				jobs = append(jobs, job{point: info, image: img, present: err == nil,
					crash: rep.String()})
			})
		}
		if err := checkJobs(d, cfg, jobs, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// enumerate crashes clones of fsys under the crash decisions
// choice.Enumerate reaches, in each crash mode, and calls each with the
// crashed clone. The enumeration is stratified: every count of kept
// directory operations and, in prefix mode, of kept data operations gets
// its own budget of cfg.ImagesPerPoint. (One depth-first enumeration would
// spend it all on the first stratum: pi creates its file as <path>.tmp and
// renames it, so "the rename was lost" comes first, and under it every torn
// byte and junk tail of a file pi never reads.)
func enumerate(fsys *faults.FS, cfg Config, each func(*faults.FS, faults.CrashReport)) {
	dataOps, dirOps := fsys.Pending(SessionPath)
	if d, _ := fsys.Pending(SessionPath + ".tmp"); d > dataOps {
		dataOps = d
	}
	for _, mode := range modes(cfg.Faults) {
		kept := dataOps
		if mode == faults.ModeSubset {
			kept = 0
		}
		for j := 0; j <= dirOps; j++ {
			for k := 0; k <= kept; k++ {
				force := map[string]int{"crash: journal ops kept": j}
				if mode == faults.ModePrefix {
					force["crash: ops kept of "] = k
				}
				choice.Enumerate(cfg.ImagesPerPoint, func(c choice.Source) {
					src := forced{c: c, force: force}
					g := fsys.Clone(src)
					each(g, g.CrashInMode(src, mode))
				})
			}
		}
	}
}

// forced answers the decisions whose label starts with a key of force with
// that value (clamped to the range asked) and every other from c.
type forced struct {
	c     choice.Source
	force map[string]int
}

func (f forced) Intn(label string, n int) int {
	for prefix, v := range f.force {
		if strings.HasPrefix(label, prefix) {
			return min(v, max(n-1, 0))
		}
	}
	return f.c.Intn(label, n)
}

// modes lists the crash modes opts allows, as props/crash's sweep does.
func modes(opts faults.Options) []string {
	if opts.Subset {
		return []string{faults.ModePrefix, faults.ModeSubset}
	}
	return []string{faults.ModePrefix}
}

// replay performs pi's recorded calls on fsys as node's fs does them
// (writeFile: create or truncate, then write; appendFile: open for
// appending, then write; the parent directory made first, which faults.FS
// keeps durable) and returns how many calls completed before the crash
// point cut the process off (every call when there is none).
func replay(fsys *faults.FS, log []FileOp) int {
	for i, op := range log {
		if err := replayOne(fsys, op); err != nil {
			return i
		}
	}
	return len(log)
}

func replayOne(fsys *faults.FS, op FileOp) error {
	switch op.Op {
	case "writeFile", "appendFile":
		if err := fsys.MkdirAll(filepath.Dir(op.Path)); err != nil {
			return err
		}
		open := fsys.OpenAppend
		if op.Op == "writeFile" {
			open = fsys.Create
		}
		f, err := open(op.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write(op.Data)
		return err
	case "renameFile":
		return fsys.Rename(op.Path, op.To)
	case "remove":
		return fsys.Remove(op.Path)
	}
	return fmt.Errorf("picrash: unknown file operation %q", op.Op)
}

// pointOracle builds the oracle of a process that completed the first done
// calls of run.Log: a call whose file operations all completed answered
// (acknowledged or rejected, as pi did), the first one cut off is
// indefinite, later ones never ran. Under ExpectPi acknowledged commits are
// recorded as unsynced (crash.Oracle.Unsynced: any prefix may survive).
func pointOracle(expect Expect, seed uint64, point int, wl [][]mstore.Write, run RunResult, done int) (*pointInfo, error) {
	info := &pointInfo{seed: seed, point: point, oracle: crash.NewOracle()}
	// The process died inside the call that owns the first operation it
	// did not complete: earlier calls answered, later ones never ran.
	cut := len(wl)
	if done < len(run.Log) {
		cut = run.Log[done].Call
	}
	info.cut = cut
	if cut < 0 {
		return info, nil // create never resolved: nothing was acknowledged
	}
	for i, ws := range wl {
		out := run.Commits[i]
		if i > cut {
			break
		}
		if i == cut {
			info.oracle.Indefinite(ws)
			break
		}
		if !out.OK {
			if err := info.oracle.Rejected(ws, errors.New(out.Error)); err != nil {
				return info, fmt.Errorf("commit %d: %w", i, err)
			}
			continue
		}
		res := store.CommitResult{FirstSeq: out.FirstSeq, Seqs: out.Seqs}
		if len(res.Seqs) == 0 {
			res.Seqs = nil
		}
		var err error
		if expect == ExpectPi {
			err = info.oracle.Unsynced(ws, res)
		} else {
			err = info.oracle.Acked(ws, res)
		}
		if err != nil {
			return info, fmt.Errorf("commit %d: %w", i, err)
		}
		if len(ws) > 0 {
			info.acked++
		}
	}
	return info, nil
}

// lineEnds returns the end offsets, in the session file, of the header line
// (the create's write) and of each commit line the first done calls
// appended.
func lineEnds(log []FileOp, done int) []int {
	var ends []int
	size := 0
	for _, op := range log[:done] {
		switch {
		case op.Op == "writeFile" && op.Path == SessionPath+".tmp":
			size = len(op.Data)
			ends = []int{size}
		case op.Op == "appendFile" && op.Path == SessionPath:
			size += len(op.Data)
			ends = append(ends, size)
		}
	}
	return ends
}

func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	if b == nil {
		h.Write([]byte{1})
	} else {
		h.Write([]byte{0})
		h.Write(b)
	}
	return h.Sum64()
}

// checkJobs opens every distinct image once, in one batch, and checks each
// job against its crash point.
func checkJobs(d *Driver, cfg Config, jobs []job, st *Stats) error {
	index := map[uint64]int{}
	var images [][]byte
	for _, j := range jobs {
		h := hashBytes(imageOf(j))
		if _, ok := index[h]; !ok {
			index[h] = len(images)
			images = append(images, imageOf(j))
		}
	}
	results, err := d.OpenAll(SessionPath, images)
	if err != nil {
		return err
	}
	var repairs []repairJob
	for _, j := range jobs {
		st.Checked++
		r := results[index[hashBytes(imageOf(j))]]
		if rj, ok := check(cfg, j, r, st); ok && cfg.Repair {
			repairs = append(repairs, rj)
		}
	}
	if len(repairs) > 0 {
		return checkRepairs(d, cfg, repairs, st)
	}
	return nil
}

func imageOf(j job) []byte {
	if !j.present {
		return nil
	}
	if j.image == nil {
		return []byte{}
	}
	return j.image
}

// Snapshot converts pi's state to model form (crash.ReadSnapshot's shape).
func Snapshot(s PiState) mstore.Snapshot {
	snap := mstore.Snapshot{NextSeq: s.NextSeq}
	for _, e := range s.Entries {
		snap.Entries = append(snap.Entries, mstore.Row{ID: e.ID, ParentID: e.ParentID, Seq: e.Seq})
	}
	for _, u := range s.Usage {
		snap.Usage = append(snap.Usage, mstore.Row{ID: u.ID, Seq: u.Seq})
	}
	for _, v := range s.Values {
		snap.Values = append(snap.Values, mstore.AddrValue{Addr: mstore.Addr{Namespace: v.Namespace, Key: v.Key},
			Stored: mstore.Stored{Value: v.Value, Seq: v.Seq}})
	}
	for _, l := range s.Lists {
		al := mstore.AddrList{Addr: mstore.Addr{Namespace: l.Namespace, Key: l.Key}}
		for _, e := range l.Elements {
			al.Elems = append(al.Elems, mstore.Stored{Value: e.Value, Seq: e.Seq})
		}
		snap.Lists = append(snap.Lists, al)
	}
	sort.SliceStable(snap.Values, func(a, b int) bool { return lessAddr(snap.Values[a].Addr, snap.Values[b].Addr) })
	sort.SliceStable(snap.Lists, func(a, b int) bool { return lessAddr(snap.Lists[a].Addr, snap.Lists[b].Addr) })
	return snap
}

func lessAddr(a, b mstore.Addr) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Key < b.Key
}

// shape classifies an image against what the process had written: lcp is
// how many leading bytes equal the page cache's file, and contiguous says
// the rest holds no newline (a torn write, zeros or garbage: what pi's
// open must cut off as a torn tail). Anything else has a hole.
func shape(img, visible []byte) (lcp int, contiguous bool) {
	for lcp < len(img) && lcp < len(visible) && img[lcp] == visible[lcp] {
		lcp++
	}
	return lcp, !bytes.Contains(img[lcp:], []byte{'\n'})
}

// complete counts the lines of ends (header first) that lie whole in the
// first lcp bytes: 0 means not even the header.
func complete(ends []int, lcp int) int {
	n := 0
	for _, e := range ends {
		if e <= lcp {
			n++
		}
	}
	return n
}

// check checks one job; it returns a repair job when the image was torn
// and pi repaired it.
func check(cfg Config, j job, r OpenResult, st *Stats) (repairJob, bool) {
	p := j.point
	where := j.where
	if where == "" {
		where = fmt.Sprintf("workload seed %d, crash point %d, crash %s", p.seed, p.point, j.crash)
	}
	lost := func(kept int, kind string) {
		if n := p.acked - kept; n > 0 {
			st.AckedLost++
			st.MaxAckedLost = max(st.MaxAckedLost, n)
			what := "opened"
			switch {
			case !j.present:
				what = "no file"
			case !r.OK:
				what = "refused: " + r.Error
			}
			st.example(kind, fmt.Sprintf("%s: %d of %d acknowledged commits lost (%s); file %q", where, n, p.acked, what, j.image))
		}
	}
	strict := cfg.Expect == ExpectDurable
	if !j.present {
		st.Gone++
		lost(0, "gone")
		if strict && p.acked > 0 {
			st.fail("%s: the session file vanished after %d acknowledged commits", where, p.acked)
		}
		return repairJob{}, false
	}
	lcp, contiguous := shape(j.image, p.visible)
	lines := complete(p.lineEnds, lcp)
	if !r.OK {
		if st.Refusals == nil {
			st.Refusals = map[string]int{}
		}
		st.Refusals[lineNumber.ReplaceAllString(r.Error, "line <n>")]++
		switch {
		case contiguous && lines == 0:
			st.NoHeader++
			lost(0, "no header")
			if strict && p.acked > 0 {
				st.fail("%s: refused (%s) after %d acknowledged commits", where, r.Error, p.acked)
			}
		case contiguous:
			st.fail("%s: pi refused an image holding %d whole lines and a torn tail: %s (cause: %s)\nfile: %q", where, lines, r.Error, r.Cause, j.image)
		default:
			st.Holed++
			lost(0, "hole")
			if strict {
				st.fail("%s: pi refused an image with a hole: %s (cause: %s)\nfile: %q", where, r.Error, r.Cause, j.image)
			}
		}
		return repairJob{}, false
	}
	st.Opened++
	got := Snapshot(r.State)
	k, err := p.oracle.Check(got)
	if err != nil {
		st.fail("%s: %v\nfile: %q", where, err, j.image)
		return repairJob{}, false
	}
	lost(k, "prefix")
	if !contiguous {
		return repairJob{}, false
	}
	if want := lines - 1; k != want {
		st.fail("%s: pi recovered %d commit lines, the image holds %d whole\nfile: %q", where, k, want, j.image)
		return repairJob{}, false
	}
	after, ok := r.Files[SessionPath]
	cut := j.image[:bytes.LastIndexByte(j.image, '\n')+1]
	torn := len(cut) < len(j.image)
	if !ok || !bytes.Equal(after, cut) {
		st.fail("%s: after open the file is %q, want its complete lines %q", where, after, cut)
		return repairJob{}, false
	}
	if !torn {
		return repairJob{}, false
	}
	return repairJob{point: p, where: where, image: j.image, lines: k, log: r.Log}, true
}

// repairJob is a torn image pi opened and repaired: the image was the
// durable disk, and state is what it opened to.
type repairJob struct {
	point *pointInfo
	where string
	image []byte
	lines int // whole commit lines in the image
	log   []FileOp
}

// checkRepairs crashes pi's torn-tail repair of each image at every file
// operation, under every enumerated crash decision, and holds each result
// to the same check as the sweep's images, with the repaired file as what
// the process wrote and the image's whole lines as acknowledged: they were
// on disk before pi's open touched the file.
func checkRepairs(d *Driver, cfg Config, repairs []repairJob, st *Stats) error {
	var jobs []job
	seen := map[[2]uint64]bool{}
	repaired := map[uint64]bool{}
	rcfg := cfg
	rcfg.ImagesPerPoint = max(cfg.ImagesPerPoint/10, 20)
	for _, rj := range repairs {
		// A crash inside the repair leaves the image itself (the rename
		// was lost: checked already) or a crash image of the repaired
		// file: what matters is what pi writes, the image's whole lines.
		cut := rj.image[:bytes.LastIndexByte(rj.image, '\n')+1]
		if repaired[hashBytes(cut)] {
			continue
		}
		repaired[hashBytes(cut)] = true
		st.Repaired++
		base := faults.NewFSWith(choice.Fixed(0), cfg.Faults)
		base.WriteDurable(SessionPath, rj.image)
		whole := base.Clone(choice.Fixed(0))
		replay(whole, rj.log)
		total := whole.Ops()
		info := &pointInfo{seed: rj.point.seed, point: rj.point.point, oracle: rj.point.oracle, acked: rj.lines,
			visible: cut, lineEnds: ends(cut)}
		for p := 0; p <= total; p++ {
			fsys := base.Clone(choice.Fixed(0))
			fsys.CrashAfter(p)
			replay(fsys, rj.log)
			enumerate(fsys, rcfg, func(g *faults.FS, rep faults.CrashReport) {
				img, err := g.ReadFile(SessionPath)
				key := [2]uint64{hashBytes(rj.image), rep.Image}
				if seen[key] {
					return
				}
				seen[key] = true
				jobs = append(jobs, job{point: info, image: img, present: err == nil,
					where: fmt.Sprintf("%s; then opened (pi repaired the torn tail) and crashed at repair op %d, crash %s", rj.where, p, rep)})
			})
		}
	}
	index := map[uint64]int{}
	var images [][]byte
	for _, j := range jobs {
		h := hashBytes(imageOf(j))
		if _, ok := index[h]; !ok {
			index[h] = len(images)
			images = append(images, imageOf(j))
		}
	}
	results, err := d.OpenAll(SessionPath, images)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		st.RepairChecked++
		var sub Stats
		check(cfg, j, results[index[hashBytes(imageOf(j))]], &sub)
		st.RepairLost += sub.AckedLost
		for k, v := range sub.Refusals {
			if st.Refusals == nil {
				st.Refusals = map[string]int{}
			}
			st.Refusals["repair: "+k] += v
		}
		for _, f := range sub.Failures {
			st.fail("repair: %s", f)
		}
		for k, v := range sub.Examples {
			st.example("repair "+k, v)
		}
	}
	return nil
}

// ends returns the end offset of each line of content.
func ends(content []byte) []int {
	var out []int
	for i, b := range content {
		if b == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}
