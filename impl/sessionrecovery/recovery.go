// Package sessionrecovery inspects a pi JSONL session file left behind by a
// crash: every orphaned frame list, every rule the file breaks, and the
// exact transaction recovery would commit for each orphan. The transaction
// is not re-derived here: impl/lane's own recovery step runs against a
// dry-run JSONL store (jsonl.OpenDryRun), which keeps the lines it would
// append. Apply runs the same step against the real file, after a backup.
//
// Seq order and entry parents are checked by the open itself (pi's
// validateCommittedWrites): a file breaking them fails with the line.
package sessionrecovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// Orphan is a frame list whose operation is still effect_pending: the
// process that streamed it died before settling.
type Orphan struct {
	Lane, Operation, ResponseEntryID string
	Leaf                             string
	CancelRequested                  bool
	Frames                           int
	// Transaction is the recovery transaction's records, each its exact
	// JSONL bytes, in commit order; empty when recovery commits nothing
	// offline (a deferred poll needs the provider).
	Transaction []json.RawMessage
	Note        string
}

// Broken is one rule the file breaks.
type Broken struct{ Rule, Detail string }

// Report is what Inspect or Apply found.
type Report struct {
	TornTail bool // the last line is incomplete; open drops it
	Orphans  []Orphan
	Broken   []Broken
	// BackedUp is set by Apply when it copied the file to its backup,
	// which it does only when there is something to write.
	BackedUp bool
	// BackupBytes is the size of the backup Apply wrote.
	BackupBytes int64
}

// Clean reports a file with nothing to recover and no broken rule.
func (r Report) Clean() bool { return !r.TornTail && len(r.Orphans) == 0 && len(r.Broken) == 0 }

// Options bound what recovery reads and guard what Apply writes.
type Options struct {
	// MaxFileBytes refuses a session file larger than this, before reading
	// past it (0: any size, as pi's open reads).
	MaxFileBytes int64
	// Guard is the caller's hold on the session file for the whole of
	// Apply (env.LockFile's *env.LockedFile). With it, Apply refuses when
	// the file is replaced or grows under it, and drops a torn tail in
	// place instead of renaming a new file over the session (which would
	// send a concurrent writer's later appends to an unlinked file). nil
	// guards nothing: for files no other process can reach.
	Guard Guard
	// DefaultMaxAgentDelayMs is lane.Config.DefaultMaxAgentDelayMs: the
	// cap on the retry delay of an orphan whose stored retry policy names
	// none (nil: pi-ai's 60000 ms, pi-agent-core 0.87.1 and later; +Inf:
	// pi-agent-core 0.85.1's uncapped retryDelay).
	DefaultMaxAgentDelayMs *float64
	// ErrorPatterns is lane.Config.ErrorPatterns: the pi-ai release whose
	// overflow patterns classify an orphan's error ("": 1.0.3).
	ErrorPatterns pi.AIRelease
}

// Guard holds the session file while Apply changes it.
type Guard interface {
	// Size returns the held file's size.
	Size() (int64, error)
	// Check fails unless the path still names the held file (device and
	// inode) and the file holds exactly size bytes.
	Check(size int64) error
	// Truncate cuts the held file, which must still hold expect bytes, to
	// size in place and fsyncs it, with no other process able to append
	// between the check and the cut where the system allows (env's lease).
	Truncate(expect, size int64) error
	// SameFile reports whether path names the held file.
	SameFile(path string) (bool, error)
	// OpenElsewhere lists the other processes holding the file open.
	OpenElsewhere() ([]int, error)
}

// notOpenElsewhere refuses while another process holds the session open:
// it may append between Apply's last size check and the truncation of a
// torn tail, and those bytes would be cut.
func notOpenElsewhere(g Guard, path string) error {
	pids, err := g.OpenElsewhere()
	if err != nil {
		return fmt.Errorf("sessionrecovery: %s: %w", path, err)
	}
	if len(pids) > 0 {
		return fmt.Errorf("sessionrecovery: %s: nothing changed: %w: held open by process %v", path, ErrChanged, pids)
	}
	return nil
}

// ErrChanged is the cause of Apply's refusal when the session changed
// under it: another process appended to it, renamed over it, or left a
// torn tail again after the repair.
var ErrChanged = errors.New("the session changed while --apply ran (another process is writing it)")

// Inspect opens path without writing and reports what recovery would do.
func Inspect(e env.Env, path string, opts Options) (Report, error) {
	r, _, err := inspect(e, path, opts)
	return r, err
}

// inspect is Inspect that also returns how many bytes (newlines included)
// the recovery's transactions would append.
func inspect(e env.Env, path string, opts Options) (Report, int64, error) {
	st, err := jsonl.OpenDryRun(e, path, jsonl.Options{MaxFileBytes: opts.MaxFileBytes})
	if err != nil {
		return Report{}, 0, err
	}
	defer st.Close()
	r, err := run(e, st, opts)
	if err != nil {
		return Report{}, 0, err
	}
	lines, torn, _ := st.DryRunLines()
	r.TornTail = torn
	var appended int64
	for _, l := range lines {
		appended += int64(len(l)) + 1
	}
	return r, appended, attach(&r, lines)
}

// Apply copies path to backup (fsynced; backup must not exist), then opens
// path for writing (repairing a torn tail), runs recovery for every orphan
// with every commit fsynced, and returns what it did. It first inspects,
// and refuses if the real run commits anything but the inspected lines.
//
// With opts.Guard, the torn tail is dropped in place (truncate and fsync,
// under the guard's lock) rather than by pi's tmp-and-rename repair, and
// the file's identity and size are checked after the backup, before and
// after the tail is dropped, and after the commits: a change before
// anything is written refuses with nothing changed (the backup removed).
func Apply(e env.Env, path, backup string, opts Options) (Report, error) {
	// Both runs see one instant and the same minted ids, so the committed
	// transactions can be compared byte for byte with the inspected ones.
	e.Clock = FrozenClock{T: e.Clock.Now()}
	ids := &replayIDs{src: e.IDs}
	e.IDs = ids
	g := opts.Guard
	var size0 int64
	if g != nil {
		var err error
		if size0, err = g.Size(); err != nil {
			return Report{}, fmt.Errorf("sessionrecovery: %s: %w", path, err)
		}
		if err := notSession(g, backup); err != nil {
			return Report{}, err
		}
		if err := notOpenElsewhere(g, path); err != nil {
			return Report{}, err
		}
	}
	want, appended, err := inspect(e, path, opts)
	if err != nil {
		return Report{}, err
	}
	if !want.TornTail && len(want.Orphans) == 0 {
		return want, nil // nothing to write, so nothing to back up
	}
	before, err := copyFile(e.FS, path, backup, opts.MaxFileBytes)
	if err != nil {
		return Report{}, err
	}
	if g != nil {
		if err := notSession(g, backup); err != nil {
			return Report{}, err
		}
		err := g.Check(int64(len(before)))
		if err == nil && int64(len(before)) != size0 {
			err = fmt.Errorf("held %d bytes when inspected, %d when copied", size0, len(before))
		}
		if err != nil {
			_ = e.FS.Remove(backup) // nothing was changed: the backup is ours and of no use
			return Report{}, fmt.Errorf("sessionrecovery: %s: nothing changed: %w: %w", path, ErrChanged, err)
		}
	}
	kept := before
	if want.TornTail {
		kept = before[:bytes.LastIndexByte(before, '\n')+1]
		if g != nil {
			if err := notOpenElsewhere(g, path); err != nil {
				_ = e.FS.Remove(backup) // nothing was changed: the backup is ours and of no use
				return Report{}, err
			}
			err := g.Truncate(int64(len(before)), int64(len(kept)))
			if err == nil {
				err = g.Check(int64(len(kept)))
			}
			if err != nil {
				return Report{}, fmt.Errorf("sessionrecovery: %s: dropping the torn tail: %w: %w (backup at %s)", path, ErrChanged, err, backup)
			}
		}
	}
	ids.replay()
	st, err := jsonl.Open(e, path, jsonl.Options{Sync: jsonl.SyncAlways, MaxFileBytes: opts.MaxFileBytes, RefuseTornTail: g != nil})
	if errors.Is(err, jsonl.ErrTornTail) {
		return Report{}, fmt.Errorf("sessionrecovery: %s: %w: torn again after the repair (backup at %s)", path, ErrChanged, backup)
	}
	if err != nil {
		return Report{}, err
	}
	got, err := run(e, st, opts)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Report{}, err
	}
	if g != nil {
		if err := g.Check(int64(len(kept)) + appended); err != nil {
			return Report{}, fmt.Errorf("sessionrecovery: %s: %w: %w (backup at %s)", path, ErrChanged, err, backup)
		}
	}
	// The file can hold no more than what was read plus the inspected
	// transactions; anything larger changed under us, and is not read.
	after, err := e.FS.ReadFileAtMost(path, int64(len(kept))+appended)
	if err != nil {
		return Report{}, fmt.Errorf("sessionrecovery: read %s: %w", path, err)
	}
	if !bytes.HasPrefix(after, kept) {
		return Report{}, fmt.Errorf("sessionrecovery: %s changed below its recovered lines (backup at %s)", path, backup)
	}
	got.TornTail, got.BackedUp, got.BackupBytes = want.TornTail, true, int64(len(before))
	if err := attach(&got, lines(after[len(kept):])); err != nil {
		return Report{}, err
	}
	if len(got.Orphans) != len(want.Orphans) {
		return Report{}, fmt.Errorf("sessionrecovery: %s: the committed recovery differs from the inspected one (backup at %s)", path, backup)
	}
	for i := range got.Orphans {
		if fmt.Sprint(got.Orphans[i].Transaction) != fmt.Sprint(want.Orphans[i].Transaction) {
			return Report{}, fmt.Errorf("sessionrecovery: %s: the committed recovery differs from the inspected one (backup at %s)", path, backup)
		}
	}
	return got, nil
}

// notSession fails when backup names the guarded session file.
func notSession(g Guard, backup string) error {
	same, err := g.SameFile(backup)
	if err != nil {
		return fmt.Errorf("sessionrecovery: backup %s: %w", backup, err)
	}
	if same {
		return fmt.Errorf("sessionrecovery: backup %s: is the session file itself", backup)
	}
	return nil
}

func lines(b []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// run finds orphans and broken rules in st and runs lane recovery for each
// recoverable orphan, one transaction each, in lane-name order. The
// orphans' transactions are filled in by attach.
func run(e env.Env, st *jsonl.Store, opts Options) (Report, error) {
	var r Report
	lanes, err := st.ScanValues(lane.NSLaneState, "")
	if err != nil {
		return r, err
	}
	entries, err := st.Entries()
	if err != nil {
		return r, err
	}
	ids := map[string]bool{}
	for _, en := range entries {
		ids[en.Entry.ID] = true
	}
	orphaned := map[string]bool{}
	for _, ls := range lanes {
		name := ls.Address.Key
		l, err := lane.Open(lane.Config{Name: name, Storage: st, Clock: e.Clock, IDs: e.IDs, Exec: e.Executor,
			DefaultMaxAgentDelayMs: opts.DefaultMaxAgentDelayMs, ErrorPatterns: opts.ErrorPatterns})
		if err != nil {
			return r, fmt.Errorf("sessionrecovery: lane %q: %w", name, err)
		}
		if b := danglingTip(st, name, ids); b != nil {
			r.Broken = append(r.Broken, *b)
		}
		o, err := recoverLane(st, l)
		if cerr := l.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return r, err
		}
		if o != nil {
			orphaned[o.Operation+":"+o.ResponseEntryID] = true
			r.Orphans = append(r.Orphans, *o)
		}
	}
	keys, err := st.ListKeys(lane.NSAssistantFrame)
	if err != nil {
		return r, err
	}
	for _, key := range keys {
		if !orphaned[key] {
			r.Broken = append(r.Broken, Broken{"frame list of a settled operation", settledDetail(st, key)})
		}
	}
	return r, nil
}

// recoverLane reports the lane's orphan, if any, and runs lane recovery's
// step for it (the step that settles an effect_pending from its frames).
func recoverLane(st *jsonl.Store, l *lane.Lane) (*Orphan, error) {
	cur := l.Current()
	if cur == nil || !cur.State.At.IsEffectPending() {
		return nil, nil
	}
	o := &Orphan{Lane: l.Name(), Operation: cur.ID, ResponseEntryID: cur.State.ResponseEntryID,
		Leaf: string(cur.State.At), CancelRequested: cur.State.Control.CancelRequested}
	n, err := countFrames(st, lane.FramesAddr(o.Operation, o.ResponseEntryID))
	if err != nil {
		return nil, err
	}
	o.Frames = n
	if cur.State.At == lane.LeafDeferredEffectPending && !o.CancelRequested {
		o.Note = "a deferred poll was in flight: recovery polls the provider again, nothing to commit offline"
		return o, nil
	}
	if _, err := l.Step(lane.StepOptions{}); err != nil {
		return nil, fmt.Errorf("sessionrecovery: recover %s in lane %q: %w", o.Operation, o.Lane, err)
	}
	return o, nil
}

func countFrames(st store.Storage, addr store.Address) (int, error) {
	n := 0
	var cursor *int64
	for {
		page, err := st.ReadList(addr, store.ReadOptions{Cursor: cursor, Limit: 10_000})
		if err != nil {
			return 0, err
		}
		n += len(page)
		if len(page) < 10_000 {
			return n, nil
		}
		cursor = &page[len(page)-1].Seq
	}
}

// attach hands each recoverable orphan, in order, one committed line.
func attach(r *Report, committed [][]byte) error {
	i := 0
	for k := range r.Orphans {
		o := &r.Orphans[k]
		if o.Note != "" {
			continue
		}
		if i >= len(committed) {
			return fmt.Errorf("sessionrecovery: recovery of %s committed nothing", o.Operation)
		}
		recs, err := records(committed[i])
		if err != nil {
			return err
		}
		o.Transaction = recs
		i++
	}
	if i != len(committed) {
		return fmt.Errorf("sessionrecovery: recovery committed %d transactions for %d orphans", len(committed), i)
	}
	return nil
}

// records splits a transaction line into its records' exact bytes.
func records(line []byte) ([]json.RawMessage, error) {
	if len(line) == 0 || line[0] != '[' {
		return []json.RawMessage{json.RawMessage(line)}, nil
	}
	var out []json.RawMessage
	if err := json.Unmarshal(line, &out); err != nil {
		return nil, fmt.Errorf("sessionrecovery: split transaction: %w", err)
	}
	return out, nil
}

func danglingTip(st store.Storage, name string, ids map[string]bool) *Broken {
	tip, err := st.GetValue(lane.BranchTipAddr(name))
	if err != nil || tip == nil {
		return nil
	}
	v, err := pi.ParseJSON(string(tip.Value))
	if err != nil || v.Kind() != pi.String || ids[v.Str()] {
		return nil
	}
	return &Broken{"dangling branch tip", fmt.Sprintf("lane %q: tip %s names no entry", name, v.Str())}
}

func settledDetail(st store.Storage, key string) string {
	where := lane.NSAssistantFrame + "/" + key
	op, _, ok := strings.Cut(key, ":")
	if !ok {
		return where + ": key is not operation:response"
	}
	sv, err := st.GetValue(lane.OpStateAddr(op))
	if err != nil || sv == nil {
		return where + ": operation " + op + " has no state"
	}
	s, err := lane.DecodeState(sv.Value)
	if err != nil {
		return where + ": operation " + op + ": " + err.Error()
	}
	return fmt.Sprintf("%s: operation %s is at %s (responseEntryId %s), so its frames should have been deleted", where, op, s.At, s.ResponseEntryID)
}

// copyFile writes src's bytes to dst (which must not exist), fsyncs it and
// its directory, and returns the bytes it copied.
func copyFile(fsys env.FS, src, dst string, limit int64) ([]byte, error) {
	if ok, err := fsys.Exists(dst); err != nil {
		return nil, fmt.Errorf("sessionrecovery: backup %s: %w", dst, err)
	} else if ok {
		return nil, fmt.Errorf("sessionrecovery: backup %s: %w", dst, errBackupExists)
	}
	content, err := env.ReadAtMost(fsys, src, limit)
	if err != nil {
		return nil, fmt.Errorf("sessionrecovery: read %s: %w", src, err)
	}
	f, err := fsys.Create(dst)
	if err != nil {
		return nil, fmt.Errorf("sessionrecovery: backup %s: %w", dst, err)
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.SyncDir(filepath.Dir(dst))
	}
	if err != nil {
		return nil, fmt.Errorf("sessionrecovery: backup %s: %w", dst, err)
	}
	return content, nil
}

// errBackupExists is an fs.ErrExist, so callers treat it as an I/O refusal.
var errBackupExists = fmt.Errorf("%w: refusing to overwrite", fs.ErrExist)

// FrozenClock reads one instant forever, so the transaction recovery would
// commit is a function of the file and that instant alone; recovery never
// waits, and Sleep returns at once without moving the clock. Apply freezes
// the clock it is given; a caller wanting reproducible output (recover
// --now) passes one itself.
type FrozenClock struct{ T time.Time }

// Now returns the frozen instant.
func (c FrozenClock) Now() time.Time { return c.T }

// Sleep returns at once.
func (FrozenClock) Sleep(time.Duration) {}

// replayIDs records the ids it hands out, and after replay() hands out the
// same ones again before minting new ones.
type replayIDs struct {
	mu   sync.Mutex
	src  env.IDs
	log  []string
	next int
	on   bool
}

func (r *replayIDs) NewID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.on && r.next < len(r.log) {
		r.next++
		return r.log[r.next-1]
	}
	id := r.src.NewID()
	if !r.on {
		r.log = append(r.log, id)
	}
	return id
}

func (r *replayIDs) replay() {
	r.mu.Lock()
	r.on, r.next = true, 0
	r.mu.Unlock()
}

// Render writes the report as text. applied says whether the transactions
// were committed (Apply) or only computed (Inspect).
func Render(w io.Writer, path string, r Report, applied bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s\n", path)
	if r.TornTail {
		verb := "open drops it (not written)"
		if applied {
			verb = "dropped"
		}
		fmt.Fprintf(&b, "torn tail: the last line is incomplete; %s\n", verb)
	}
	for _, o := range r.Orphans {
		cancel := ""
		if o.CancelRequested {
			cancel = ", cancel requested"
		}
		fmt.Fprintf(&b, "orphan: lane %q operation %s response %s at %s%s: %d frames\n", o.Lane, o.Operation, o.ResponseEntryID, o.Leaf, cancel, o.Frames)
		if o.Note != "" {
			fmt.Fprintf(&b, "  %s\n", o.Note)
			continue
		}
		verb := "recovery would commit (not written)"
		if applied {
			verb = "recovery committed (fsynced)"
		}
		fmt.Fprintf(&b, "  %s one transaction of %d records:\n", verb, len(o.Transaction))
		for _, rec := range o.Transaction {
			fmt.Fprintf(&b, "    %s\n", rec)
		}
	}
	for _, x := range r.Broken {
		fmt.Fprintf(&b, "broken: %s: %s\n", x.Rule, x.Detail)
	}
	fmt.Fprintf(&b, "%d orphans, %d broken rules", len(r.Orphans), len(r.Broken))
	if r.Clean() {
		b.WriteString(": clean")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var _ Guard = (*env.LockedFile)(nil)
