// Package jsonl is pi's JSONL storage format v4 as a store.Storage: a header
// line, then one physical line per non-empty commit (a bare object for one
// write, an array for several). Beyond pi it fsyncs (Options.Sync), batches
// concurrent commits into one write + fsync (group commit), and compacts
// dead bytes (pi's unimplemented J1 snapshot rewrite). All file access goes
// through env.FS and all waiting through env futures.
package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"unicode/utf8"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
)

// SyncMode chooses when commits are fsynced.
type SyncMode int

const (
	// SyncAlways acknowledges a commit only after its bytes are fsynced, and
	// fsyncs the parent directory after every create and rename.
	SyncAlways SyncMode = iota
	// SyncNever never fsyncs (pi's behaviour; for tests and benchmarks).
	SyncNever
)

// Options tune a Store. The zero value is SyncAlways without compaction.
type Options struct {
	Sync SyncMode
	// CompactDeadRatio triggers Compact when dead bytes / file bytes reaches
	// it, checked on open and after commits that delete something. 0 = off.
	CompactDeadRatio float64
	// CompactMinBytes suppresses automatic compaction of smaller files.
	CompactMinBytes int64
	// Strict refuses records pi's open accepts but frameproof's own writer
	// never produces: duplicate keys, non-string ids or addresses, an entry
	// without parentId, a set or append without value, a delete whose
	// address pi's value()/list() would refuse, and rows Commit would refuse
	// (reserved or integer-like keys). The default (false) opens exactly
	// what pi's JsonlStorage.open opens.
	Strict bool
	// RepairHoledTail treats a final line holding a NUL byte as torn, like
	// a line without its newline: the encoder never writes a raw NUL, so
	// such a line is an append whose blocks reached the disk out of order
	// (a hole of zeros before a surviving newline), never a committed one.
	// pi (session/jsonl/storage.ts, JsonlStorage.open) rejects the file as
	// corrupt instead, so the default is off; the crash simulations turn it
	// on.
	RepairHoledTail bool
	// MaxFileBytes refuses, before reading past it, a file larger than
	// this many bytes. 0 reads any size, as pi's open does; a tool given
	// an untrusted file sets it so a file that grows after its size was
	// checked cannot make it read without bound.
	MaxFileBytes int64
	// RefuseTornTail makes Open fail on a torn tail instead of repairing it
	// by writing <path>.tmp and renaming it over the file (pi's repair). A
	// caller that dropped the tail itself, in place and under its lock,
	// sets it: a tail torn since then is another process mid-append, and a
	// rename would send that process's later appends to an unlinked file.
	RefuseTornTail bool
	// bugs are the simulator's injected defects: always off unless built
	// with the frameproofbugs tag and set through WithBugs (bugs.go).
	bugs bugs
	// generalOnly replays every line by the general path (no appendShape),
	// for the test that compares the two.
	generalOnly bool
	// lineByLine finds each line's newline and checks its UTF-8 before the
	// line is scanned (no scanRest), for the test that compares the two.
	lineByLine bool
	// noMemo scans every object value whole (no scanner.memoValue), for
	// the test that compares the two.
	noMemo bool
}

// ErrTornTail is Open's refusal of a torn tail under Options.RefuseTornTail.
var ErrTornTail = errors.New("jsonl: open: the last line is incomplete (another process may be appending)")

// ErrClosed is pi's closed-storage error.
var ErrClosed = errors.New("JsonlStorage is closed")

// StorageError is pi's "Invalid JSONL storage <path>: <what>", with the
// underlying cause (pi's Error.cause) available through errors.Unwrap.
type StorageError struct {
	Path  string
	What  string // "missing header", "invalid header", "line <n>"
	Line  int    // 1-based line for corrupt lines, else 0
	Cause error
}

func (e *StorageError) Error() string { return "Invalid JSONL storage " + e.Path + ": " + e.What }

// Unwrap returns the cause.
func (e *StorageError) Unwrap() error { return e.Cause }

// Store is an open JSONL file.
type Store struct {
	fs    env.FS
	clock env.Clock
	exec  env.Executor
	path  string
	opts  Options

	mu     sync.Mutex // guards everything below; never held across I/O
	header Header
	state  *store.State
	closed bool
	failed error    // set after a failed append/fsync/rename: the file may be torn
	file   env.File // append handle; touched only by the current leader
	size   int64    // bytes in the file
	dead   int64    // bytes of records that no longer contribute to state
	live   liveBytes
	dryRun *dryRun // non-nil: OpenDryRun; commits are kept, never written
	ids    env.IDs
	legacy *legacyV3 // non-nil: the file is still a v3 session (legacyv3.go)
	queue  []*request
	leader bool // a leader is flushing the queue

	stats Stats
	// shapedLines counts the lines Open replayed by the learned append
	// shape (replayAppend), for the test that compares it with replay.
	shapedLines int
	// scannedLines counts the lines whose end Open's scan found
	// (nextLine), for the test that compares it with lineByLine.
	scannedLines int
}

// Stats counts I/O for tests and benchmarks.
type Stats struct {
	Writes      int // append calls
	Syncs       int // file fsyncs of appended data
	Commits     int // acknowledged non-empty commits
	Compactions int
}

var _ store.Storage = (*Store)(nil)

// Create writes a new file holding only header (atomically, via tmp +
// rename) and opens it. Unlike pi, it refuses to replace an existing file.
func Create(e env.Env, path string, header Header, opts Options) (*Store, error) {
	if ok, err := e.FS.Exists(path); err != nil {
		return nil, fmt.Errorf("jsonl: create %s: %w", path, err)
	} else if ok {
		return nil, fmt.Errorf("jsonl: create %s: file exists", path)
	}
	if header.StorageVersion == 0 {
		header.StorageVersion = StorageVersion
	}
	header.fields = nil
	content := append(header.encode(), '\n')
	if _, err := publish(e.FS, path, content, opts.Sync == SyncAlways); err != nil {
		return nil, err
	}
	return Open(e, path, opts)
}

// Open reads, validates and replays path (pi's JsonlStorage.open), repairs a
// torn tail, and opens the file for appending.
func Open(e env.Env, path string, opts Options) (*Store, error) {
	s, kept, torn, err := load(e, path, opts)
	if err != nil {
		return nil, err
	}
	// pi's openLegacyV3 leaves a v3 file as it is, torn tail included: the
	// upgrade at the first commit rewrites it whole.
	if torn && opts.RefuseTornTail && s.legacy == nil {
		return nil, ErrTornTail
	}
	if torn && s.legacy == nil {
		if _, err := publish(e.FS, path, kept, opts.Sync == SyncAlways); err != nil {
			return nil, err
		}
	}
	if opts.Sync == SyncAlways {
		// The file's name may not be durable yet: a rename whose directory
		// fsync failed (a republish or a compaction of the process before)
		// can be undone by a power loss, taking every commit acknowledged
		// into the new file with it.
		if err := e.FS.SyncDir(filepath.Dir(path)); err != nil {
			return nil, fmt.Errorf("Failed to open JSONL storage %s: sync directory: %w", path, err)
		}
	}
	if s.file, err = e.FS.OpenAppend(path); err != nil {
		return nil, fmt.Errorf("jsonl: open %s for appending: %w", path, err)
	}
	if s.compactionDue() {
		if err := s.compact(); err != nil && !errors.Is(err, errAddressNotRewritable) {
			_ = s.file.Close()
			return nil, err
		}
	}
	return s, nil
}

// OpenDryRun reads and replays path exactly as Open does but never writes:
// a torn tail is dropped in memory only, and commits are validated and
// applied in memory while their lines are kept for DryRunLines instead of
// being appended. Compact fails.
func OpenDryRun(e env.Env, path string, opts Options) (*Store, error) {
	s, _, torn, err := load(e, path, opts)
	if err != nil {
		return nil, err
	}
	s.dryRun = &dryRun{torn: torn}
	return s, nil
}

// dryRun is what a dry-run store would have written.
type dryRun struct {
	torn  bool
	lines [][]byte
}

// DryRunLines returns the lines (without newlines) that the commits of a
// dry-run store would have appended, and whether Open would first have
// rewritten the file without its torn tail. ok is false for a real store.
func (s *Store) DryRunLines() (lines [][]byte, tornTail, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dryRun == nil {
		return nil, false, false
	}
	return append([][]byte(nil), s.dryRun.lines...), s.dryRun.torn, true
}

// load reads and replays path; kept is the content without a torn tail.
func load(e env.Env, path string, opts Options) (s *Store, kept []byte, torn bool, err error) {
	content, err := env.ReadAtMost(e.FS, path, opts.MaxFileBytes)
	if err != nil {
		return nil, nil, false, fmt.Errorf("Failed to read JSONL storage %s: %w", path, err)
	}
	s = &Store{fs: e.FS, clock: e.Clock, exec: e.Executor, ids: e.IDs, path: path, opts: opts,
		state: store.NewState(), live: newLiveBytes()}

	kept = content
	torn = !bytes.HasSuffix(content, []byte("\n"))
	if torn && opts.bugs.on(bugTornTailAsCorruption) && bytes.IndexByte(content, '\n') >= 0 {
		// BUG (injected): a torn tail reported as a corrupt final line.
		return nil, nil, false, &StorageError{Path: path, What: fmt.Sprintf("line %d", bytes.Count(content, []byte("\n"))+1),
			Line: bytes.Count(content, []byte("\n")) + 1, Cause: fmt.Errorf("torn line")}
	}
	if torn {
		kept = content[:bytes.LastIndexByte(content, '\n')+1]
	}
	if opts.RepairHoledTail {
		if last := lastLineStart(kept); bytes.IndexByte(kept[last:], 0) >= 0 {
			kept, torn = kept[:last], true
		}
	}
	headerEnd := bytes.IndexByte(kept, '\n')
	if headerEnd <= 0 {
		return nil, nil, false, &StorageError{Path: path, What: "missing header"}
	}
	header, err := parseHeader(kept[:headerEnd])
	if errors.Is(err, errLegacyV3) {
		if err := s.loadLegacyV3(e, kept[:headerEnd], kept[headerEnd+1:]); err != nil {
			return nil, nil, false, err
		}
		s.size = int64(len(content))
		return s, kept, torn, nil
	}
	if err != nil {
		return nil, nil, false, &StorageError{Path: path, What: "invalid header", Cause: err}
	}
	if header.StorageVersion != StorageVersion {
		return nil, nil, false, fmt.Errorf("Session %s uses unsupported storage version %d", header.ID, header.StorageVersion)
	}
	s.header = header
	rest := kept[headerEnd+1:]
	// content is this open's own buffer (env.FS.ReadFile), written back
	// only when the tail is torn
	p := &lineParser{strict: opts.Strict, shareRows: !torn}
	p.sc.noMemo = opts.noMemo
	var shape appendShape
	for lineNo := 2; len(rest) > 0; lineNo++ {
		line, n, scanned := p.nextLine(rest, &shape, !opts.lineByLine)
		if scanned {
			s.scannedLines++
		}
		rest = rest[n+1:]
		p.left = len(rest)
		if !scanned && !opts.generalOnly && s.replayAppend(p, &shape, line) {
			continue
		}
		if err := s.replay(p, line, scanned); err != nil {
			return nil, nil, false, &StorageError{Path: path, What: fmt.Sprintf("line %d", lineNo), Line: lineNo, Cause: err}
		}
		shape.learn(p, line)
	}
	if header.NextSeq != nil {
		if err := s.state.AdvanceNextSeq(*header.NextSeq); err != nil {
			return nil, nil, false, err
		}
	}
	s.size = int64(len(kept))
	return s, kept, torn, nil
}

// nextLine takes the line at the start of rest apart: n is its length in
// the file (its newline not counted), line its text as node reads it, and
// scanned reports that p holds its scan already (scanRest), which replay
// then decodes. A line the append shape may match is left to replayAppend,
// which scans only its value; scanned implies the shape does not match.
func (p *lineParser) nextLine(rest []byte, shape *appendShape, fold bool) (line []byte, n int, scanned bool) {
	if fold && !shape.mayMatch(rest) {
		if n, ok := p.scanRest(rest); ok {
			return rest[:n], n, true
		}
	}
	n = bytes.IndexByte(rest, '\n')
	line = rest[:n]
	if !utf8.Valid(line) {
		// node reads the file as text (readTextFile): an ill-formed
		// sequence anywhere in a line, a value's or an entry's bytes
		// included, is one U+FFFD per maximal subpart. Only the line's
		// size accounting still counts the file's bytes.
		line = []byte(store.NodeText(line))
	}
	return line, n, false
}

// lastLineStart returns the offset of the last complete line of kept (which
// is empty or ends with a newline).
func lastLineStart(kept []byte) int {
	if len(kept) == 0 {
		return 0
	}
	return bytes.LastIndexByte(kept[:len(kept)-1], '\n') + 1
}

// replay validates and applies one complete line in pi's order: parse
// every record, validate the transaction, then apply record by record,
// where a new value or list address can still fail (applyValidated).
// scanned: p holds the line's scan already (nextLine).
func (s *Store) replay(p *lineParser, line []byte, scanned bool) error {
	var writes []store.CommittedWrite
	var sizes []int64
	var err error
	if scanned {
		writes, sizes, err = p.decode()
	} else {
		writes, sizes, err = p.parse(line)
	}
	if err != nil {
		return err
	}
	if allEntries(writes) {
		// entries need no address check and no dead-byte accounting
		for i := range writes {
			if !p.known[i] {
				p.kinds[i] = store.KindOf(writes[i].Entry.Raw)
			}
		}
		if !p.reserved {
			// the first line of entries sizes the id map for a file of
			// lines like it
			p.reserved = true
			perEntry := max(1, len(line)/len(writes))
			s.state.ReserveEntries(len(writes) + min(p.left/perEntry, maxReservedEntries))
		}
		if err := s.state.ValidateApplyEntries(writes, p.kinds[:len(writes)]); err != nil {
			return piCommitError(err)
		}
		return nil
	}
	if err := s.validate(writes); err != nil {
		return piCommitError(err)
	}
	for i := range writes {
		if err := s.addressAtApply(p, &writes[i], i); err != nil {
			return err
		}
		if p.known[i] {
			s.state.ApplyKinds(writes[i:i+1], p.kinds[i:i+1])
		} else {
			s.state.Apply(writes[i : i+1])
		}
		s.account(writes[i:i+1], sizes[i:i+1])
	}
	return nil
}

// maxReservedEntries bounds the id map an open sizes ahead (8M ids, some
// 300 MB of map); past it the map grows as the entries come.
const maxReservedEntries = 8 << 20

// allEntries reports whether writes are all entry writes.
func allEntries(writes []store.CommittedWrite) bool {
	for i := range writes {
		if writes[i].Kind != store.WriteEntry {
			return false
		}
	}
	return len(writes) > 0
}

// replayAppend replays line when it has the learned append shape, and
// reports whether it did. Of replay's checks only two can fail on such a
// line where they passed on the one the shape came from: the seq order
// (validate), and the address check addressAtApply makes when the list is
// not there (deleted since); in either case the general path replays the
// line, and reports the failure if there is one.
func (s *Store) replayAppend(p *lineParser, shape *appendShape, line []byte) bool {
	seq, value, ok := shape.match(&p.sc, line)
	if !ok || seq < s.state.NextSeq() {
		return false
	}
	live := s.live.existing(&shape.key)
	if live == nil {
		return false
	}
	w := &shape.writes[0]
	w.Seq, w.Value = seq, value
	s.state.Apply(shape.writes[:])
	*live += int64(len(line)) + 1 // accountAppend's rule
	s.shapedLines++
	return true
}

// validate is validateCommittedWrites for a replayed line. Most lines hold
// only value and list writes, for which the rule is the seq order alone;
// those skip the id bookkeeping. Writes are looked at in place, not
// copied: a CommittedWrite is 120 bytes, just written by the parser.
func (s *Store) validate(writes []store.CommittedWrite) error {
	prev := s.state.NextSeq() - 1
	for i := range writes {
		w := &writes[i]
		if w.Kind == store.WriteEntry || w.Kind == store.WriteUsage {
			return s.state.Validate(writes)
		}
		if w.Seq <= prev {
			return &store.SeqError{Seq: w.Seq}
		}
		prev = w.Seq
	}
	return nil
}

// addressAtApply is where pi's applyValidated builds an address with
// value()/list(): on every value set, and on a list append that creates the
// list. Deletes build none, so any namespace and key replay. It also folds
// each usage row into the totals (addUsage), which a row without usage or
// usage.cost fails.
func (s *Store) addressAtApply(p *lineParser, w *store.CommittedWrite, i int) error {
	switch {
	case w.Kind == store.WriteUsage:
		return p.addrs[i].usage
	case w.Kind == store.WriteValue && w.Op == store.OpSet:
	case w.Kind == store.WriteList && w.Op == store.OpAppend:
		if s.live.has(keyOf(w)) {
			return nil
		}
	default:
		return nil
	}
	return p.addressError(p.addrs[i])
}

// liveKey names a value or list for dead-byte accounting, by pi's
// physical key (store.PhysicalParts), as its maps name them.
type liveKey struct {
	kind    byte // 'v'alue or 'l'ist
	ns, key string
}

func keyOf(w *store.CommittedWrite) liveKey {
	ns, key := store.PhysicalParts(w.Namespace, w.Key)
	return liveKey{w.Kind[0], ns, key}
}

// account updates dead-byte bookkeeping for applied writes. A value's live
// bytes are its set record; a list's are its append records. Overwritten or
// deleted records, and delete records themselves, are dead.
func (s *Store) account(writes []store.CommittedWrite, sizes []int64) {
	for i := range writes {
		w := &writes[i]
		switch w.Kind {
		case store.WriteValue, store.WriteList:
			k := keyOf(w)
			switch w.Op {
			case store.OpSet:
				n := s.live.slot(k)
				s.dead += *n
				*n = sizes[i]
			case store.OpAppend:
				s.accountAppend(k, sizes[i])
			case store.OpDelete:
				s.dead += s.live.remove(k) + sizes[i]
			}
		}
	}
}

// accountAppend is account's rule for an append of size bytes to the list
// at k: the list's live bytes grow (replayAppend applies it to the
// counter it looked up).
func (s *Store) accountAppend(k liveKey, size int64) { *s.live.slot(k) += size }

// liveBytes counts each value's and list's live record bytes. The last
// slot used is cached: a session appends runs of frames to one list.
type liveBytes struct {
	m       map[liveKey]*int64
	lastKey liveKey
	last    *int64
}

func newLiveBytes() liveBytes { return liveBytes{m: map[liveKey]*int64{}} }

func (l *liveBytes) has(k liveKey) bool { return l.existing(&k) != nil }

// existing returns k's counter, or nil when k has none: the one lookup
// behind has and slot. k is passed by reference: a liveKey is 40 bytes,
// and replayAppend's key is the same one line after line.
func (l *liveBytes) existing(k *liveKey) *int64 {
	if l.last != nil && *k == l.lastKey {
		return l.last
	}
	n := l.m[*k]
	if n != nil {
		l.lastKey, l.last = *k, n
	}
	return n
}

// slot returns k's counter, creating it at zero.
func (l *liveBytes) slot(k liveKey) *int64 {
	if n := l.existing(&k); n != nil {
		return n
	}
	n := new(int64)
	l.m[k] = n
	l.lastKey, l.last = k, n
	return n
}

// remove drops k and returns its bytes.
func (l *liveBytes) remove(k liveKey) int64 {
	l.last = nil
	n := l.m[k]
	delete(l.m, k)
	if n == nil {
		return 0
	}
	return *n
}

func (s *Store) compactionDue() bool {
	r := s.opts.CompactDeadRatio
	return r > 0 && s.size > 0 && s.size >= s.opts.CompactMinBytes && float64(s.dead)/float64(s.size) >= r
}

// publish writes content to path atomically: <path>.tmp, fsync, rename,
// fsync of the directory (fsyncs only when sync). The tmp file is removed on
// failure. Error strings follow pi's publishFileAtomically.
func publish(fs env.FS, path string, content []byte, sync bool) (renamed bool, err error) {
	tmp := path + ".tmp"
	fail := func(action string, err error) (bool, error) {
		if ok, _ := fs.Exists(tmp); ok {
			_ = fs.Remove(tmp)
		}
		return false, fmt.Errorf("Failed to %s JSONL storage %s: %w", action, path, err)
	}
	f, err := fs.Create(tmp)
	if err != nil {
		return fail("stage", err)
	}
	if _, err := f.Write(content); err != nil {
		_ = f.Close()
		return fail("stage", err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			_ = f.Close()
			return fail("stage", err)
		}
	}
	if err := f.Close(); err != nil {
		return fail("stage", err)
	}
	if err := fs.Rename(tmp, path); err != nil {
		return fail("publish", err)
	}
	if sync {
		if err := fs.SyncDir(filepath.Dir(path)); err != nil {
			return true, fmt.Errorf("Failed to publish JSONL storage %s: sync directory: %w", path, err)
		}
	}
	return true, nil
}

// Header returns the file's header.
func (s *Store) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// Path returns the file path.
func (s *Store) Path() string { return s.path }

// Stats returns I/O counters.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// DeadBytes returns (dead, total) file bytes.
func (s *Store) DeadBytes() (dead, total int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead, s.size
}

func (s *Store) read() (*store.State, error) {
	if s.closed {
		return nil, ErrClosed
	}
	return s.state, nil
}

// GetValue returns the value at addr or nil.
func (s *Store) GetValue(addr store.Address) (*store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.GetValue(addr), nil
}

// ScanValues returns namespace's values with keyPrefix in key order.
func (s *Store) ScanValues(namespace, keyPrefix string) ([]store.StoredValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.ScanValues(namespace, keyPrefix), nil
}

// ReadList pages a list.
func (s *Store) ReadList(addr store.Address, opts store.ReadOptions) ([]store.ListElement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.ReadList(addr, opts)
}

// Entries returns every entry in seq order.
func (s *Store) Entries() ([]store.StoredEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.Entries(), nil
}

// Usage returns every usage row in seq order.
func (s *Store) Usage() ([]store.StoredUsage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.Usage(), nil
}

// NextSeq is the seq of the next write.
func (s *Store) NextSeq() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.NextSeq()
}

// ListKeys returns the keys of namespace's non-empty lists in key order.
func (s *Store) ListKeys(namespace string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	return st.ListKeys(namespace), nil
}
