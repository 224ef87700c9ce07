package lane

import "github.com/frameproof/frameproof/impl/env"

// commitMark lets Snapshot, which reads beside the mutation line, tell
// whether the storage it read still belongs to the view it captured.
//
// A command publishes its next view only after its storage commit returns,
// and a store may expose a commit before acknowledging it (JSONL compacts in
// between), so a read beside the line could pair an applied settlement's
// storage (its frames deleted) with the effect_pending view before it. The
// line runs one commit at a time (frame appends included), so while a
// command's commit is in flight storage changes only by that commit, and
// storage's NextSeq tells whether it has been applied: it is from before the
// commit and grows when the commit applies. The fields are under Lane.mu.
type commitMark struct {
	begun     uint64        // command commits begun in this process
	inFlight  bool          // a command's commit has begun and not published
	from      int64         // storage's NextSeq before the commit in flight
	published env.Completer // resolved when the commit in flight ends
}

// beginCommit marks a command's commit in flight. Line work only.
func (l *Lane) beginCommit() {
	from := l.cfg.Storage.NextSeq()
	l.mu.Lock()
	l.cut.begun++
	l.cut.inFlight, l.cut.from = true, from
	l.mu.Unlock()
}

// endCommitLocked ends the commit in flight, after the view it leads to is
// published (or it failed); l.mu is held.
func (l *Lane) endCommitLocked() {
	l.cut.inFlight = false
	if f := l.cut.published; f != nil {
		l.cut.published = nil
		f.Resolve(nil)
	}
}

// readAt reports whether storage read since mark m (taken with the view,
// under l.mu) belongs to that view: no command commit began since m, and the
// one in flight at m, if any, had not been applied when the reads ended.
// Otherwise it returns the commit-published future to wait on before reading
// again, or nil to read again at once. Call it after the reads.
func (l *Lane) readAt(m commitMark) (bool, env.Future) {
	next := l.cfg.Storage.NextSeq()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut.begun == m.begun && (!m.inFlight || next <= m.from) {
		return true, nil
	}
	if !l.cut.inFlight {
		return false, nil
	}
	if l.cut.published == nil {
		l.cut.published = l.cfg.Exec.NewFuture("lane:commit-published")
	}
	return false, l.cut.published
}
