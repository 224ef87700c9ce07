// Package sessionrepo is pi's SessionRepo (session/types.ts): a collection
// of sessions that creates, opens, lists, deletes and forks them, each
// session one store. Two repositories, as pi ships them: JSONL (jsonl.go,
// pi's session/jsonl/repo.ts JsonlSessionRepo: one v4 file per session in
// pi's directory layout and file names) and memory (memory.go, pi's
// session/memory.ts MemorySessionRepo). Forks follow session/fork.ts and
// fork-policy.ts (package impl/store/fork). Error strings are pi's.
//
// A Session here is the repository's half of pi's Session: its metadata and
// its open store (pi wraps that store in StorageBackedSession, whose branch
// and mutation API is impl/lane's business). A session is open in at most
// one place: Open refuses an open session, Delete an open one, until the
// holder closes it.
package sessionrepo

import (
	"errors"
	"sync"

	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
)

// StorageVersion is pi's JSONL_STORAGE_VERSION and MEMORY_STORAGE_VERSION.
const StorageVersion = 1

// Metadata is pi's SessionMetadata, with JsonlSessionMetadata's members
// (cwd, path, modifiedAt) for a JSONL session. Its JSON is pi's:
// metadataFromHeader's member order, optional members omitted.
type Metadata struct {
	ID                      string   `json:"id"`
	CreatedAt               int64    `json:"createdAt"`
	StorageVersion          int64    `json:"storageVersion"`
	Cwd                     *string  `json:"cwd,omitempty"`
	Path                    string   `json:"path,omitempty"`
	ModifiedAt              *float64 `json:"modifiedAt,omitempty"`
	ParentSessionID         *string  `json:"parentSessionId,omitempty"`
	LegacyParentSessionPath *string  `json:"legacyParentSessionPath,omitempty"`
}

// CreateOptions is pi's SessionCreateOptions (JsonlSessionCreateOptions
// adds Cwd).
type CreateOptions struct {
	// ID is the new session's id; "" mints a UUIDv7.
	ID string
	// ParentSessionID is recorded in the metadata (and the JSONL header).
	ParentSessionID *string
	// Cwd is the session's working directory (JSONL; resolved against the
	// repository's Cwd). "" is the repository's Cwd.
	Cwd string
}

// ListOptions is pi's JsonlSessionListOptions.
type ListOptions struct {
	// Cwd lists only the sessions of this working directory (JSONL).
	Cwd string
}

// ForkOptions is pi's ForkOptions: the fork and the destination's id.
type ForkOptions struct {
	fork.Options
	// ID is the destination's id; "" mints a UUIDv7.
	ID string
}

// Repo is pi's SessionRepo.
type Repo interface {
	Create(o CreateOptions) (*Session, error)
	Open(m Metadata) (*Session, error)
	List(o ListOptions) ([]Metadata, error)
	Delete(m Metadata) error
	Fork(source Metadata, o ForkOptions) (*Session, error)
	// Close refuses later calls. Sessions stay open (pi: "Define ownership
	// semantics before deciding whether repository close should close
	// session handles").
	Close() error
}

// Store is what a repository needs of a session's store: pi's whole
// Storage, and the fork source capture (captureForkSource).
type Store interface {
	store.QueryStorage
	CaptureForkSource() (fork.Source, error)
}

// Session is one open session.
type Session struct {
	Metadata Metadata
	// Storage is the session's store; closing the session closes it.
	Storage Store

	once     sync.Once
	closeErr error
	close    func() error
}

// Close closes the session's store and releases the session, so the
// repository may open, fork from its file or delete it. Closing twice is a
// no-op.
func (s *Session) Close() error {
	s.once.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

// pi's repository errors.
var (
	errSessionClosed = errors.New("Session is closed")
)
