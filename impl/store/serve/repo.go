package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/backends"
	"github.com/frameproof/frameproof/impl/store/fork"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/sessionrepo"
	"github.com/frameproof/frameproof/impl/store/sqlite"
)

// The session-repository protocol, "frameproof-session-repo" v1: the same
// framing as frameproof-store (a hello line, then one response line per
// request line, in order, echoing its id), serving pi's SessionRepo
// (session/types.ts) and the Storage of every session it opened:
//
//	repo.create{options:{id?, parentSessionId?, cwd?}} → {session, metadata}
//	repo.open{metadata}                                → {session, metadata}
//	repo.list{options?:{cwd?}}                         → [metadata...]
//	repo.delete{metadata}                              → null
//	repo.fork{source: metadata, options: ForkOptions}  → {session, metadata}
//	repo.close                                         → null
//
// metadata is pi's SessionMetadata JSON (JsonlSessionMetadata for JSONL);
// session is a handle naming the opened session. Every frameproof-store op
// (commit, getEntries, ..., getStats) with a "session" member is that op on
// the session's storage; close{session} closes the session, releasing it
// in the repository. A call on a closed session's handle fails with pi's
// "Session is closed". corpus/peers/pi-agent-core/session-repo-adapter.mjs
// presents a served repository as pi's SessionRepo.
const (
	RepoProtocolName    = "frameproof-session-repo"
	RepoProtocolVersion = 1
)

// RepoBackends are the backends with a session repository.
var RepoBackends = []string{"memory", "jsonl", "sqlite"}

// OpenRepo opens the named backend's session repository: for JSONL, the
// sessions root is dir (created when absent) and cwd (absolute; "" is dir)
// the cwd of a session created without one; for SQLite, dir (absolute) is
// the directory of the session databases; memory ignores both.
func OpenRepo(e env.Env, backend, dir, cwd string, o backends.Options) (sessionrepo.Repo, error) {
	if _, err := backends.ByName(backend); err != nil {
		return nil, err
	}
	switch backend {
	case "memory":
		return sessionrepo.NewMemory(e), nil
	case "jsonl":
		if dir == "" {
			return nil, fmt.Errorf("serve: backend %s needs a directory", backend)
		}
		if err := e.FS.MkdirAll(dir); err != nil {
			return nil, fmt.Errorf("serve: %s: %w", dir, err)
		}
		opts := jsonl.Options{}
		if o.Sync == backends.SyncNever {
			opts.Sync = jsonl.SyncNever
		}
		if cwd == "" {
			cwd = dir
		}
		return sessionrepo.NewJSONL(e, sessionrepo.JSONLOptions{Root: dir, Cwd: cwd, Store: opts})
	case "sqlite":
		if dir == "" {
			return nil, fmt.Errorf("serve: backend %s needs a directory", backend)
		}
		opts := sqlite.Options{}
		if o.Sync == backends.SyncNever {
			opts.Sync = sqlite.SyncNever
		}
		return sessionrepo.NewSQLite(e, dir, opts)
	}
	return nil, fmt.Errorf("serve: backend %s has no session repository (repositories: %s)", backend, strings.Join(RepoBackends, ", "))
}

// ServeRepo answers the session-repository protocol from in on out until
// in ends, then closes every session still open and the repository.
func ServeRepo(repo sessionrepo.Repo, backend, version string, in io.Reader, out io.Writer) (err error) {
	s := &repoServer{repo: repo, sessions: map[int64]*sessionrepo.Session{}}
	defer func() {
		if cerr := s.closeAll(); err == nil && cerr != nil {
			err = fmt.Errorf("serve: close repository: %w", cerr)
		}
	}()
	return serveLines(newHello(RepoProtocolName, RepoProtocolVersion, version, backend), in, out,
		func(line []byte) response { return handleRequest(line, s.call) })
}

type repoServer struct {
	repo     sessionrepo.Repo
	sessions map[int64]*sessionrepo.Session
	next     int64
}

func (s *repoServer) closeAll() error {
	ids := make([]int64, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var errs []error
	for _, id := range ids {
		errs = append(errs, s.sessions[id].Close())
	}
	return errors.Join(append(errs, s.repo.Close())...)
}

// opened registers a session and answers {session, metadata}.
func (s *repoServer) opened(sess *sessionrepo.Session, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	s.next++
	s.sessions[s.next] = sess
	return map[string]any{"session": s.next, "metadata": sess.Metadata}, nil
}

func (s *repoServer) call(op string, req map[string]json.RawMessage) (any, error) {
	if raw, ok := req["session"]; ok {
		var h int64
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, badRequest("session must be a handle number")
		}
		sess := s.sessions[h]
		if sess == nil {
			if h < 1 || h > s.next {
				return nil, badRequest("unknown session handle %d", h)
			}
			return nil, errors.New("Session is closed")
		}
		if op == "close" {
			delete(s.sessions, h)
			return nil, sess.Close()
		}
		return (&server{st: sess.Storage}).call(op, req)
	}
	switch op {
	case "repo.create":
		var o struct {
			ID              string  `json:"id"`
			ParentSessionID *string `json:"parentSessionId"`
			Cwd             string  `json:"cwd"`
		}
		if err := decodeOptional(req["options"], &o); err != nil {
			return nil, badRequest("repo.create: options: %v", err)
		}
		return s.opened(s.repo.Create(sessionrepo.CreateOptions{ID: o.ID, ParentSessionID: o.ParentSessionID, Cwd: o.Cwd}))
	case "repo.open":
		m, err := decodeMetadata(req["metadata"])
		if err != nil {
			return nil, err
		}
		return s.opened(s.repo.Open(m))
	case "repo.list":
		var o struct {
			Cwd string `json:"cwd"`
		}
		if err := decodeOptional(req["options"], &o); err != nil {
			return nil, badRequest("repo.list: options: %v", err)
		}
		return s.repo.List(sessionrepo.ListOptions{Cwd: o.Cwd})
	case "repo.delete":
		m, err := decodeMetadata(req["metadata"])
		if err != nil {
			return nil, err
		}
		return nil, s.repo.Delete(m)
	case "repo.fork":
		m, err := decodeMetadata(req["source"])
		if err != nil {
			return nil, err
		}
		o, err := DecodeForkOptions(req["options"])
		if err != nil {
			return nil, err
		}
		return s.opened(s.repo.Fork(m, o))
	case "repo.close":
		return nil, s.repo.Close()
	}
	return nil, badRequest("unknown op: %q (a storage op needs a session)", op)
}

func decodeOptional(raw json.RawMessage, into any) error {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, into)
}

func decodeMetadata(raw json.RawMessage) (sessionrepo.Metadata, error) {
	var m sessionrepo.Metadata
	if err := json.Unmarshal(raw, &m); err != nil || raw == nil {
		return m, badRequest("metadata must be pi's SessionMetadata object")
	}
	return m, nil
}

// DecodeForkOptions reads pi's ForkOptions: {scope: "tree", id?} or
// {scope: "branch", branch, entryId?, position?, id?}. An entryId of null
// is pi's absent one (options.entryId ?? tip).
func DecodeForkOptions(raw json.RawMessage) (sessionrepo.ForkOptions, error) {
	var o struct {
		Scope    string  `json:"scope"`
		Branch   string  `json:"branch"`
		EntryID  *string `json:"entryId"`
		Position string  `json:"position"`
		ID       string  `json:"id"`
	}
	if err := json.Unmarshal(raw, &o); err != nil || raw == nil {
		return sessionrepo.ForkOptions{}, badRequest("fork options must be pi's ForkOptions object")
	}
	return sessionrepo.ForkOptions{ID: o.ID, Options: fork.Options{Scope: fork.Scope(o.Scope), Branch: o.Branch,
		EntryID: o.EntryID, Position: fork.Position(o.Position)}}, nil
}
