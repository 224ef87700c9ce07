package jsonl

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/fork"
)

// CaptureForkSource is pi's JsonlStorage.captureForkSource: the entries and
// scalar values at one boundary between commits. A commit applies its
// writes under the store's lock after its line is on disk, so the capture
// sees every acknowledged commit and none half applied.
func (s *Store) CaptureForkSource() (fork.Source, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.read()
	if err != nil {
		return fork.Source{}, err
	}
	entries, values := st.ForkSource()
	return fork.Source{Entries: entries, Values: values}, nil
}

// CreateFromForkSnapshot is pi's JsonlStorage.createFromForkSnapshot: the
// header with nextSeq set to the snapshot's, then one line per write (its
// source seq kept), published atomically (tmp + rename), then opened.
// Unlike pi it refuses to replace an existing file, as Create does.
func CreateFromForkSnapshot(e env.Env, path string, header Header, snap fork.Snapshot, opts Options) (*Store, error) {
	if ok, err := e.FS.Exists(path); err != nil {
		return nil, fmt.Errorf("jsonl: create %s: %w", path, err)
	} else if ok {
		return nil, fmt.Errorf("jsonl: create %s: file exists", path)
	}
	if header.StorageVersion == 0 {
		header.StorageVersion = StorageVersion
	}
	header.fields = nil
	records := snap.Writes()
	if err := rewritable(records); err != nil {
		return nil, fmt.Errorf("jsonl: create %s: %w", path, err)
	}
	content, _ := snapshotContent(header.withNextSeq(snap.NextSeq), records)
	if _, err := publish(e.FS, path, content, opts.Sync == SyncAlways); err != nil {
		return nil, err
	}
	return Open(e, path, opts)
}
