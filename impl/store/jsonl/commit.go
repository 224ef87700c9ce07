package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
)

// Group commit (leader/follower). Every Commit, Compact and Close becomes a
// request in one FIFO queue. The caller that finds no leader becomes the
// leader: it takes the whole queue as a batch, prepares each commit against
// the state plus the commits before it in the batch, writes every accepted
// commit's line with one write and one fsync, applies them to memory, and
// resolves each request. Then it hands leadership to the first request
// queued meanwhile (resolving that request's future) or retires. Followers
// just Wait on their request's future, so all blocking goes through env
// futures and a simulator decides who runs when.
//
// Atomicity per commit is unchanged: each commit is its own line, validated
// on its own; a rejected commit does not affect its batch neighbours.

type requestKind int

const (
	reqCommit requestKind = iota
	reqCompact
	reqClose
)

type request struct {
	kind     requestKind
	writes   []store.Write
	tx       *store.Tx     // a commit of a prepared transaction, instead of writes
	wake     env.Completer // resolved when done or promoted to leader
	promoted bool          // set under mu before wake resolves
	res      store.CommitResult
	err      error
}

// Commit appends writes as one transaction and returns once it is durable
// (SyncAlways) or written (SyncNever).
func (s *Store) Commit(writes []store.Write) (store.CommitResult, error) {
	req, err := s.submit(reqCommit, writes)
	if err != nil {
		return store.CommitResult{}, err
	}
	return req.res, req.err
}

var _ store.TxStorage = (*Store)(nil)

// CommitTx is Commit of a prepared transaction, whose rows are not
// checked again.
func (s *Store) CommitTx(tx *store.Tx) (store.CommitResult, error) {
	req, err := s.submitRequest(&request{kind: reqCommit, tx: tx})
	if err != nil {
		return store.CommitResult{}, err
	}
	return req.res, req.err
}

// prepare stamps the request's writes with seqs from next and timestamp
// ts, preparing them first unless they are a Tx's.
func (r *request) prepare(next, ts int64) ([]store.CommittedWrite, []store.EntryKind, error) {
	if r.tx != nil {
		writes, kinds := r.tx.Stamp(next, ts)
		return writes, kinds, nil
	}
	return store.PrepareKinds(r.writes, next, ts)
}

// Compact rewrites the file to its surviving records now (see compact.go).
func (s *Store) Compact() error {
	req, err := s.submit(reqCompact, nil)
	if err != nil {
		return err
	}
	return req.err
}

// Close waits for admitted commits, then closes the file. Later calls fail
// with ErrClosed. Closing twice is a no-op.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
	req, err := s.submit(reqClose, nil)
	if errors.Is(err, ErrClosed) {
		return nil // closed concurrently
	}
	if err != nil {
		return err
	}
	return req.err
}

func (s *Store) submit(kind requestKind, writes []store.Write) (*request, error) {
	return s.submitRequest(&request{kind: kind, writes: writes})
}

// submitRequest queues req and waits for it to be done.
func (s *Store) submitRequest(req *request) (*request, error) {
	kind := req.kind
	req.wake = s.exec.NewFuture("jsonl-request")
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if kind == reqClose {
		s.closed = true // reject later submissions; admitted ones drain first
	}
	s.queue = append(s.queue, req)
	lead := !s.leader
	s.leader = true
	s.mu.Unlock()
	if !lead {
		// A failed wait (the executor abandoned this actor, e.g. its process
		// crashed) must not read as success: the request's outcome is unknown.
		if err := req.wake.Wait(); err != nil {
			return nil, fmt.Errorf("jsonl: waiting for group commit: %w", err)
		}
		s.mu.Lock()
		lead = req.promoted
		s.mu.Unlock()
	}
	if lead {
		s.lead()
	}
	return req, nil
}

// lead processes one batch, then hands over or retires.
func (s *Store) lead() {
	s.mu.Lock()
	batch := s.queue
	s.queue = nil
	s.mu.Unlock()

	for i := 0; i < len(batch); {
		if batch[i].kind != reqCommit {
			s.special(batch[i])
			i++
			continue
		}
		j := i
		for j < len(batch) && batch[j].kind == reqCommit {
			j++
		}
		s.commitGroup(batch[i:j])
		i = j
	}
	for _, r := range batch {
		r.wake.Resolve(nil)
	}

	s.mu.Lock()
	if len(s.queue) == 0 {
		s.leader = false
		s.mu.Unlock()
		return
	}
	next := s.queue[0]
	next.promoted = true
	s.mu.Unlock()
	next.wake.Resolve(nil)
}

func (s *Store) special(r *request) {
	switch r.kind {
	case reqCompact:
		r.err = s.compact()
	case reqClose:
		s.mu.Lock()
		f := s.file
		s.file = nil
		s.mu.Unlock()
		if f != nil {
			if err := f.Close(); err != nil {
				r.err = fmt.Errorf("jsonl: close %s: %w", s.path, err)
			}
		}
	}
}

// overlay answers validation lookups for the state plus the commits already
// accepted into the current batch.
// overlay is the state with a group's accepted commits on top. Their ids
// are indexed only when a later request of the group asks: a group is
// usually one request, whose own ids nobody looks up.
type overlay struct {
	base    store.Lookup
	pending [][]store.CommittedWrite // added, not yet in ids
	ids     map[string]bool          // true: an entry
}

func (o *overlay) index() {
	if len(o.pending) == 0 {
		return
	}
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	for _, writes := range o.pending {
		for i := range writes {
			switch w := &writes[i]; w.Kind {
			case store.WriteEntry:
				o.ids[w.Entry.ID] = true
			case store.WriteUsage:
				o.ids[w.Usage.ID] = false
			}
		}
	}
	o.pending = o.pending[:0]
}

func (o *overlay) HasEntryOrUsage(id string) bool {
	o.index()
	_, ok := o.ids[id]
	return ok || o.base.HasEntryOrUsage(id)
}

func (o *overlay) HasEntry(id string) bool {
	o.index()
	return o.ids[id] || o.base.HasEntry(id)
}

func (o *overlay) add(writes []store.CommittedWrite) { o.pending = append(o.pending, writes) }

type accepted struct {
	req    *request
	writes []store.CommittedWrite
	kinds  []store.EntryKind // the entries' kinds, read by Prepare
	sizes  []int64
}

// commitGroup writes a run of commit requests with one write and one fsync.
// Only the leader calls it, so the state is read here without the lock
// (readers only read; the leader is the only writer).
func (s *Store) commitGroup(reqs []*request) {
	s.mu.Lock()
	failed := s.failed
	s.mu.Unlock()
	if failed != nil {
		for _, r := range reqs {
			r.err = fmt.Errorf("Failed to append JSONL storage %s: an earlier write failed: %w", s.path, failed)
		}
		return
	}
	// A v3-backed store upgrades its file at its first non-empty commit
	// (pi's applyCommit → upgradeLegacyV3ToV4), one commit at a time.
	for len(reqs) > 0 && s.legacy != nil {
		r := reqs[0]
		reqs = reqs[1:]
		if r.tx != nil { // the upgrade commits writes
			r.writes, r.tx = r.tx.Writes(), nil
		}
		if len(r.writes) == 0 {
			next := s.state.NextSeq()
			r.res = store.ResultOf(nil, next, s.clock.Now().UnixMilli())
			continue
		}
		s.upgradeLegacyV3(r)
	}
	if len(reqs) == 0 {
		return
	}
	ov := &overlay{base: s.state}
	next := s.state.NextSeq()
	var buf []byte
	var ok []accepted
	deletes := false
	for _, r := range reqs {
		ts := s.clock.Now().UnixMilli()
		writes, kinds, err := r.prepare(next, ts)
		if err == nil {
			err = store.ValidateCommitted(writes, next, ov)
		}
		if err == nil {
			err = store.CheckUsageTotals(writes)
		}
		if err != nil {
			r.err = err
			continue
		}
		r.res = store.ResultOf(writes, next, ts)
		if len(writes) == 0 {
			continue // empty commit: no seq, no line
		}
		sizes := make([]int64, len(writes))
		if buf == nil {
			buf = takeLineBuf()
		}
		buf = slices.Grow(buf, transactionSize(writes)+1) // the line at once, not by doubling
		buf = appendTransaction(buf, writes, sizes)
		buf = append(buf, '\n')
		ov.add(writes)
		next += int64(len(writes))
		ok = append(ok, accepted{r, writes, kinds, sizes})
		for i := range writes {
			deletes = deletes || writes[i].Op == store.OpDelete
		}
	}
	if len(buf) == 0 {
		return
	}
	err := s.append(buf)
	lineLen := int64(len(buf))
	if s.dryRun == nil { // a dry run keeps its lines
		giveLineBuf(buf)
	}
	buf = nil
	if err != nil {
		s.mu.Lock()
		s.failed = err
		s.mu.Unlock()
		failed := fmt.Errorf("Failed to append JSONL storage %s: %w", s.path, err)
		if rerr := s.rewriteAfterFailedAppend(); rerr != nil {
			// the unsynced line may still be in the file: reopening it before
			// the machine restarts could sync later commits behind a hole
			failed = fmt.Errorf("%w (republishing the file failed too, so reopen it only after a restart: %v)", failed, rerr)
		}
		for _, a := range ok {
			a.req.res = store.CommitResult{}
			a.req.err = failed
		}
		return
	}
	s.mu.Lock()
	for _, a := range ok {
		s.state.ApplyKinds(a.writes, a.kinds)
		s.account(a.writes, a.sizes)
	}
	s.size += lineLen
	s.stats.Commits += len(ok)
	due := deletes && s.compactionDue()
	s.mu.Unlock()
	if due {
		// The commits are durable already. A compaction that fails before
		// its rename leaves the old file in place and is dropped silently
		// (the next deleting commit retries); one that fails after the
		// rename poisons the store, and the next commit reports that.
		_ = s.compact()
	}
}

// lineBufs holds the buffers commit groups build their lines in, between
// groups of any store: a group's lines are written and then garbage,
// and a transaction of a hundred entries is a line of tens of kilobytes,
// which would be allocated, zeroed and collected for every commit.
// File.Write does not keep its argument (io.Writer's contract; env's
// fault-injecting files copy it); a dry run does, and gives none back.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledLine is the largest buffer lineBufs keeps: a rare huge commit
// does not pin its line.
const maxPooledLine = 1 << 20

func takeLineBuf() []byte { return (*lineBufs.Get().(*[]byte))[:0] }

func giveLineBuf(buf []byte) {
	if cap(buf) <= maxPooledLine {
		lineBufs.Put(&buf)
	}
}

// append writes buf and, under SyncAlways, fsyncs it. A dry-run store
// keeps the lines instead.
func (s *Store) append(buf []byte) error {
	if s.dryRun != nil {
		s.mu.Lock()
		for _, line := range bytes.SplitAfter(buf, []byte("\n")) {
			if len(line) > 0 {
				s.dryRun.lines = append(s.dryRun.lines, bytes.TrimSuffix(line, []byte("\n")))
			}
		}
		s.mu.Unlock()
		return nil
	}
	if _, err := s.file.Write(buf); err != nil {
		return err
	}
	s.mu.Lock()
	s.stats.Writes++
	s.mu.Unlock()
	if s.opts.Sync == SyncAlways && !s.opts.bugs.on(bugAckBeforeFsync) {
		if err := s.file.Sync(); err != nil {
			return fmt.Errorf("fsync: %w", err)
		}
		s.mu.Lock()
		s.stats.Syncs++
		s.mu.Unlock()
	}
	return nil
}
