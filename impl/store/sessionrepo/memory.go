package sessionrepo

import (
	"errors"
	"fmt"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/memory"
)

// MemoryRepo is pi's MemorySessionRepo (session/memory.ts): sessions live
// in this process for as long as the repository does; closing a session
// releases it (its store stays, for a later Open or a fork) and Delete
// drops it.
type MemoryRepo struct {
	env env.Env

	mu       sync.Mutex
	sessions map[string]*memRecord
	order    []string // ids in creation order (pi's Map order, for List)
	pending  map[string]bool
	closed   bool
}

type memRecord struct {
	meta  Metadata
	store *memory.Store
	open  bool
}

var _ Repo = (*MemoryRepo)(nil)

// NewMemory returns an empty repository; e supplies the clock (createdAt,
// commit timestamps) and the ids of sessions created without one.
func NewMemory(e env.Env) *MemoryRepo {
	return &MemoryRepo{env: e, sessions: map[string]*memRecord{}, pending: map[string]bool{}}
}

var errMemoryRepoClosed = errors.New("MemorySessionRepo is closed")

func (r *MemoryRepo) assertOpen() error {
	if r.closed {
		return errMemoryRepoClosed
	}
	return nil
}

// reserve is pi's reserveId. Called with r.mu held.
func (r *MemoryRepo) reserve(id string) error {
	if r.sessions[id] != nil || r.pending[id] {
		return fmt.Errorf("Session already exists: %s", id)
	}
	r.pending[id] = true
	return nil
}

// Create is pi's MemorySessionRepo.create.
func (r *MemoryRepo) Create(o CreateOptions) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.assertOpen(); err != nil {
		return nil, err
	}
	createdAt := r.env.Clock.Now().UnixMilli()
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	if err := r.reserve(id); err != nil {
		return nil, err
	}
	defer delete(r.pending, id)
	meta := Metadata{ID: id, CreatedAt: createdAt, StorageVersion: StorageVersion, ParentSessionID: o.ParentSessionID}
	return r.publish(&memRecord{meta: meta, store: memory.New(r.env.Clock)}), nil
}

// publish records rec as open and returns its session. Called with r.mu held.
func (r *MemoryRepo) publish(rec *memRecord) *Session {
	if r.sessions[rec.meta.ID] == nil {
		r.order = append(r.order, rec.meta.ID)
	}
	r.sessions[rec.meta.ID] = rec
	rec.open = true
	return r.openRecord(rec)
}

// openRecord is pi's openRecord: a facade whose close releases the record
// and leaves its store alive.
func (r *MemoryRepo) openRecord(rec *memRecord) *Session {
	g := &guarded{Store: rec.store}
	return &Session{Metadata: rec.meta, Storage: g, close: func() error {
		g.close()
		r.mu.Lock()
		defer r.mu.Unlock()
		rec.open = false
		return nil
	}}
}

// Open is pi's MemorySessionRepo.open.
func (r *MemoryRepo) Open(m Metadata) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.assertOpen(); err != nil {
		return nil, err
	}
	rec := r.sessions[m.ID]
	if rec == nil {
		return nil, fmt.Errorf("Unknown session: %s", m.ID)
	}
	if rec.open {
		return nil, fmt.Errorf("Session is already open: %s", m.ID)
	}
	rec.open = true
	return r.openRecord(rec), nil
}

// List is pi's MemorySessionRepo.list: every session, in creation order.
func (r *MemoryRepo) List(ListOptions) ([]Metadata, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.assertOpen(); err != nil {
		return nil, err
	}
	out := make([]Metadata, 0, len(r.order))
	for _, id := range r.order {
		out = append(out, r.sessions[id].meta)
	}
	return out, nil
}

// Delete is pi's MemorySessionRepo.delete.
func (r *MemoryRepo) Delete(m Metadata) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.assertOpen(); err != nil {
		return err
	}
	rec := r.sessions[m.ID]
	if rec == nil {
		return fmt.Errorf("Unknown session: %s", m.ID)
	}
	if rec.open {
		return fmt.Errorf("Session is open: %s", m.ID)
	}
	if err := rec.store.Close(); err != nil {
		return err
	}
	delete(r.sessions, m.ID)
	for i, id := range r.order {
		if id == m.ID {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	return nil
}

// Fork is pi's MemorySessionRepo.fork: the destination id is reserved
// first, then the source (open or not) is captured at one boundary between
// its commits and forked.
func (r *MemoryRepo) Fork(source Metadata, o ForkOptions) (*Session, error) {
	r.mu.Lock()
	if err := r.assertOpen(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	src := r.sessions[source.ID]
	if src == nil {
		r.mu.Unlock()
		return nil, fmt.Errorf("Unknown session: %s", source.ID)
	}
	createdAt := r.env.Clock.Now().UnixMilli()
	id := o.ID
	if id == "" {
		id = r.env.IDs.NewID()
	}
	if err := r.reserve(id); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.pending, id)
		r.mu.Unlock()
	}()
	captured, err := src.store.CaptureForkSource()
	if err != nil {
		return nil, err
	}
	snap, err := fork.Create(captured, o.Options)
	if err != nil {
		return nil, err
	}
	st, err := memory.FromForkSnapshot(r.env.Clock, snap)
	if err != nil {
		return nil, err
	}
	parent := src.meta.ID
	meta := Metadata{ID: id, CreatedAt: createdAt, StorageVersion: StorageVersion, ParentSessionID: &parent}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.publish(&memRecord{meta: meta, store: st}), nil
}

// Close is pi's MemorySessionRepo.close: later calls fail, and every
// session's store closes.
func (r *MemoryRepo) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for _, rec := range r.sessions {
		errs = append(errs, rec.store.Close())
	}
	return errors.Join(errs...)
}

// guarded is a session's view of a store it does not own: after the
// session closes, every call fails with pi's "Session is closed" (pi's
// MemorySessionFacade) and the store stays open.
type guarded struct {
	Store
	mu     sync.Mutex
	closed bool
}

func (g *guarded) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

func (g *guarded) check() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errSessionClosed
	}
	return nil
}

func guard[T any](g *guarded, f func() (T, error)) (T, error) {
	if err := g.check(); err != nil {
		var zero T
		return zero, err
	}
	return f()
}

func (g *guarded) Commit(ws []store.Write) (store.CommitResult, error) {
	return guard(g, func() (store.CommitResult, error) { return g.Store.Commit(ws) })
}

func (g *guarded) GetValue(a store.Address) (*store.StoredValue, error) {
	return guard(g, func() (*store.StoredValue, error) { return g.Store.GetValue(a) })
}

func (g *guarded) ScanValues(ns, prefix string) ([]store.StoredValue, error) {
	return guard(g, func() ([]store.StoredValue, error) { return g.Store.ScanValues(ns, prefix) })
}

func (g *guarded) ReadList(a store.Address, o store.ReadOptions) ([]store.ListElement, error) {
	return guard(g, func() ([]store.ListElement, error) { return g.Store.ReadList(a, o) })
}

func (g *guarded) Entries() ([]store.StoredEntry, error) {
	return guard(g, g.Store.Entries)
}

func (g *guarded) Usage() ([]store.StoredUsage, error) {
	return guard(g, g.Store.Usage)
}

func (g *guarded) GetEntries(ids []string) (store.EntryList, error) {
	return guard(g, func() (store.EntryList, error) { return g.Store.GetEntries(ids) })
}

func (g *guarded) ScanBranch(q store.BranchScan) (store.EntryList, error) {
	return guard(g, func() (store.EntryList, error) { return g.Store.ScanBranch(q) })
}

func (g *guarded) ScanBranchStructure(q store.BranchScan) (store.StructureList, error) {
	return guard(g, func() (store.StructureList, error) { return g.Store.ScanBranchStructure(q) })
}

func (g *guarded) ScanEntries(q store.EntryScan) (store.EntryList, error) {
	return guard(g, func() (store.EntryList, error) { return g.Store.ScanEntries(q) })
}

func (g *guarded) ScanUsage(q store.UsageScan) ([]store.StoredUsage, error) {
	return guard(g, func() ([]store.StoredUsage, error) { return g.Store.ScanUsage(q) })
}

func (g *guarded) GetStats() (store.SessionStats, error) {
	return guard(g, g.Store.GetStats)
}

func (g *guarded) CaptureForkSource() (fork.Source, error) {
	return guard(g, g.Store.CaptureForkSource)
}

// Close closes the view, not the store.
func (g *guarded) Close() error {
	g.close()
	return nil
}
