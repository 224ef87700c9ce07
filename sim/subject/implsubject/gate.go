package implsubject

import (
	"errors"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/sim/subject"
)

// errDropped is what a commit the simulator dropped returns, and every
// commit after it (pi's GatingStorage.discard: storage loss).
var errDropped = errors.New("implsubject: storage lost: the commit was dropped")

// parked is one commit admitted to storage and held at the gate.
type parked struct {
	n       int
	writes  []store.Write
	release env.Completer
	dropped bool
}

// gatedStore is the lane's storage: every commit parks (pi's GatingStorage
// around the session storage) until ReleaseCommit lets the oldest through
// or DropParked drops them all; what lands is reported as Obs.Commits.
type gatedStore struct {
	store.Storage
	s *Subject
}

func (g *gatedStore) Commit(ws []store.Write) (store.CommitResult, error) {
	s := g.s
	if s.lost {
		return store.CommitResult{}, errDropped
	}
	s.commitSeq++
	p := &parked{n: s.commitSeq, writes: ws, release: s.w.NewFuture("commit-gate")}
	s.parked = append(s.parked, p)
	if err := p.release.Wait(); err != nil {
		return store.CommitResult{}, err // the process died with the commit parked
	}
	if p.dropped {
		s.obs.Dropped++
		return store.CommitResult{}, errDropped
	}
	res, err := g.Storage.Commit(ws)
	if err != nil {
		return res, err
	}
	s.obs.Commits = append(s.obs.Commits, subject.Commit{N: p.n, Writes: s.reported(ws)})
	return res, nil
}

// releaseOldest lets the oldest parked commit through (GatingStorage
// releases in FIFO order).
func (s *Subject) releaseOldest() error {
	if len(s.parked) == 0 {
		return errors.New("implsubject: no parked commit")
	}
	p := s.parked[0]
	s.parked = s.parked[1:]
	p.release.Resolve(nil)
	return nil
}

// dropParked drops every parked commit and refuses every later one.
func (s *Subject) dropParked() {
	s.lost = true
	for _, p := range s.parked {
		p.dropped = true
		p.release.Resolve(nil)
	}
	s.parked = nil
}

// writes renders a transaction in pi's shape (session/commit.ts).
func writes(ws []store.Write) []subject.Write {
	out := make([]subject.Write, len(ws))
	for i, w := range ws {
		sw := subject.Write{Kind: w.Kind, Op: w.Op, Namespace: w.Namespace, Key: w.Key, Value: w.Value}
		switch w.Kind {
		case store.WriteEntry:
			sw = subject.Write{Kind: w.Kind, Entry: w.Entry.Raw}
		case store.WriteUsage:
			sw = subject.Write{Kind: w.Kind, Row: w.Usage.Raw}
		}
		out[i] = sw
	}
	return out
}

// reported is a landed transaction as Obs reports it: its writes, less the
// last one of the first transaction of three or more when the planted
// defect PlantDropWrite is on (the campaign must catch it).
func (s *Subject) reported(ws []store.Write) []subject.Write {
	out := writes(ws)
	if s.opts.Plant == PlantDropWrite && !s.planted && len(out) >= 3 {
		s.planted = true
		out = out[:len(out)-1]
	}
	return out
}
