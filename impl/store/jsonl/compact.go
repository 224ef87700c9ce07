package jsonl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/store"
)

// compact is pi's J1 snapshot rewrite: the header with nextSeq, then every
// surviving record (entries, usage rows, live values, each list element as
// its own append) on its own line with its original seq, in seq order.
// Deleted lists, overwritten or deleted values and delete records vanish.
// The new file is published via tmp + fsync + rename + directory fsync, so a
// crash leaves either the old or the new file; both replay to the same state.
//
// Called only by the current leader (or by Open before the store is shared).
func (s *Store) compact() error {
	if s.dryRun != nil {
		return fmt.Errorf("jsonl: compact %s: a dry-run store writes nothing", s.path)
	}
	if s.legacy != nil {
		return nil // a v3 file is rewritten by its first commit, not before
	}
	s.mu.Lock()
	if s.failed != nil {
		err := s.failed
		s.mu.Unlock()
		return fmt.Errorf("jsonl: compact %s: an earlier write failed: %w", s.path, err)
	}
	header := s.header.withNextSeq(s.state.NextSeq())
	records := s.state.Snapshot()
	s.mu.Unlock()
	if err := rewritable(records); err != nil {
		return fmt.Errorf("jsonl: compact %s: %w", s.path, err)
	}
	if s.opts.bugs.on(bugCompactionRenumbers) {
		// BUG (injected): dense fresh seqs instead of the original ones.
		for i := range records {
			records[i].Seq = int64(i + 1)
		}
	}
	content, live := snapshotContent(header, records)
	if renamed, err := publish(s.fs, s.path, content, s.opts.Sync == SyncAlways); err != nil {
		if renamed {
			// The new file is in place but its directory entry may not be
			// durable: appending to it could lose acknowledged commits in a
			// crash that brings the old entry back. Stop accepting writes.
			s.mu.Lock()
			s.failed = err
			s.mu.Unlock()
		}
		return err
	}
	// The path now names the new file; the old append handle points at the
	// unlinked old inode and must be replaced before the next commit.
	f, err := s.fs.OpenAppend(s.path)
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.file
	if err != nil {
		s.failed = fmt.Errorf("reopen after compaction: %w", err)
		s.file = nil
		if old != nil {
			_ = old.Close()
		}
		return fmt.Errorf("jsonl: compact %s: %w", s.path, s.failed)
	}
	if old != nil {
		_ = old.Close()
	}
	s.file = f
	s.header = header
	s.size = int64(len(content))
	s.dead = 0
	s.live = live
	s.stats.Compactions++
	return nil
}

// snapshotContent is the J1 snapshot file of header and records, and the
// live bytes each value and list holds in it.
func snapshotContent(header Header, records []store.CommittedWrite) ([]byte, liveBytes) {
	content := append(header.encode(), '\n')
	live := newLiveBytes()
	sizes := make([]int64, 1)
	for _, w := range records {
		content = appendTransaction(content, []store.CommittedWrite{w}, sizes)
		content = append(content, '\n')
		if w.Kind == store.WriteValue || w.Kind == store.WriteList {
			*live.slot(keyOf(&w)) += sizes[0]
		}
	}
	return content, live
}

// rewriteAfterFailedAppend publishes the committed state as a fresh file
// after an append whose write or fsync failed, and returns why it could not.
//
// After a failed fsync the kernel may already have dropped the line's pages
// from its dirty set (Rebello et al., ATC'20; faults.FS models it): a reopen
// in the same boot still reads the line from the page cache, appends and
// syncs behind it, and the next power loss leaves zeros in the middle of the
// file, which then no longer opens, taking acknowledged commits with it. A
// new inode written from the in-memory state (which never applied the failed
// commit) holds only durable bytes. Once its rename is durable the failed
// commit is definitely not committed; before that a crash may still bring it
// back, the usual open outcome of an fsync error. The store stays poisoned
// either way. If this rewrite fails too (or its directory fsync does), the
// old file stays and only a reopen after a restart of the machine is safe:
// the commit's error says so.
func (s *Store) rewriteAfterFailedAppend() error {
	if s.dryRun != nil {
		return nil
	}
	s.mu.Lock()
	header := s.header.withNextSeq(s.state.NextSeq())
	records := s.state.Snapshot()
	s.mu.Unlock()
	if err := rewritable(records); err != nil {
		return fmt.Errorf("jsonl: compact %s: %w", s.path, err)
	}
	content, _ := snapshotContent(header, records)
	_, err := publish(s.fs, s.path, content, s.opts.Sync == SyncAlways)
	return err
}

// errAddressNotRewritable refuses a rewrite that would lose the file. pi
// accepts a namespace or key stored as a JSON array holding a NUL
// (["a\u0000b"]: validateAddress checks String() only of strings) and
// addresses it by its String(); a record keeps only that string, and written
// back as a string it is an address pi's open refuses, so the rewritten file
// would no longer open. Such a file is kept as it is, dead bytes and all.
var errAddressNotRewritable = errors.New("an address stored as a non-string JSON value holding a NUL cannot be written back")

// rewritable checks that every record's address survives the rewrite.
func rewritable(records []store.CommittedWrite) error {
	for _, w := range records {
		if strings.Contains(w.Namespace, "\x00") || strings.Contains(w.Key, "\x00") {
			return fmt.Errorf("%w (seq %d)", errAddressNotRewritable, w.Seq)
		}
	}
	return nil
}
