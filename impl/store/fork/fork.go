// Package fork is pi's fork snapshot (session/fork.ts createForkSnapshot,
// forkSnapshotWrites, validateForkSourceSnapshot; session/fork-policy.ts
// classifyForkAddress): from a source session's entries and scalar values,
// captured at one boundary between its commits, the complete logical state
// of a forked destination. Both of pi's scopes: "tree" copies every entry
// and every branch tip, "branch" copies one configured branch's ancestry up
// to (or before) a chosen entry. Entries keep their seqs and timestamps;
// values get fresh seqs after the last copied entry; a configured lane gets
// its configuration and a fresh idle lane state. Lists and usage rows are
// never copied; operation, pending and result values never are; the session
// name and the labels of copied entries always are; application (non-pi)
// values only in a tree fork; any other pi value refuses the fork.
//
// impl/store/sessionrepo forks sessions with it; impl/lane's idle fork
// image (lane.ForkWrites) is a tree fork built on it.
package fork

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// The value namespaces the fork rules name (session/values.ts).
const (
	NSBranchTip   = "pi.branch.tip"
	NSLaneConfig  = "pi.lane.config"
	NSLaneState   = "pi.lane.state"
	NSSessionName = "pi.session.name"
	NSEntryLabel  = "pi.entry.label"
	NSResult      = "pi.result"
)

// Scope is pi's ForkOptions.scope.
type Scope string

// pi's two fork scopes.
const (
	ScopeTree   Scope = "tree"
	ScopeBranch Scope = "branch"
)

// Position is pi's ForkOptions.position.
type Position string

// Before stops a branch fork at the selected entry's parent; anything else
// (pi's default "at") includes the entry.
const (
	At     Position = "at"
	Before Position = "before"
)

// Options is pi's ForkOptions less the destination id (the repository's).
type Options struct {
	Scope Scope
	// Branch is the source branch of a branch fork.
	Branch string
	// EntryID selects an entry on Branch's tip ancestry; nil is the tip.
	EntryID *string
	// Position is At (default) or Before.
	Position Position

	// UnconfiguredLanes (frameproof, not pi) accepts a lane state without
	// pi.lane.config and rebuilds it empty. impl/lane writes no lane
	// configuration (pi's harness writes it when a lane is created), so its
	// own sessions need this; pi refuses such a source ("has incomplete lane
	// state"), which is the default.
	UnconfiguredLanes bool

	bugs bugs // injectable defects (bugs.go; -tags frameproofbugs only)
}

// Source is pi's ForkSource: a source session's entries in seq order and
// its scalar values (pi's InMemoryStorageState.snapshotEntriesAndValues).
type Source struct {
	Entries []store.StoredEntry
	Values  []store.StoredValue
	// Partial is pi's entriesComplete: false (a SQLite source that read
	// only the forked branch): a tip outside Entries is then not an error
	// for a branch fork.
	Partial bool
}

// Snapshot is pi's ForkSnapshot.
type Snapshot struct {
	Entries []store.StoredEntry // in seq order
	Values  []store.StoredValue // in seq order
	// NextSeq is the destination's next seq (the JSONL header's nextSeq).
	NextSeq int64
}

// Action is classifyForkAddress's answer.
type Action int

// What a fork does with one source value.
const (
	Copy Action = iota
	Exclude
	Reconstruct
)

// Classify is fork-policy.ts classifyForkAddress: what a fork of scope
// does with the value at namespace/key, given whether the entry key names
// is copied. An unknown reserved namespace (pi or pi.*) is pi's error.
func Classify(namespace, key string, scope Scope, entryCopied func(string) bool) (Action, error) {
	switch namespace {
	case NSSessionName:
		return Copy, nil
	case NSEntryLabel:
		if entryCopied(key) {
			return Copy, nil
		}
		return Exclude, nil
	case NSBranchTip, NSLaneConfig, NSLaneState:
		return Reconstruct, nil
	case NSResult:
		return Exclude, nil
	}
	if strings.HasPrefix(namespace, "pi.op.") || strings.HasPrefix(namespace, "pi.pending.") {
		return Exclude, nil
	}
	if namespace == "pi" || strings.HasPrefix(namespace, "pi.") {
		return Exclude, fmt.Errorf("Unknown reserved fork namespace: %s", namespace)
	}
	if scope == ScopeTree {
		return Copy, nil
	}
	return Exclude, nil
}

// IdleLaneState is the lane state every forked configured lane gets.
var IdleLaneState = []byte(`{"currentOperationId":null,"lastOperationId":null,"inbox":[]}`)

// tip is a branch.tip value: a string entry id, null, or anything else.
type tip struct {
	id     string
	isNull bool
	isID   bool
	raw    string
}

func parseTip(raw []byte) tip {
	v, err := pi.ParseJSON(string(raw))
	switch {
	case err == nil && v.Kind() == pi.String:
		return tip{id: v.Str(), isID: true, raw: v.Str()}
	case err == nil && v.Kind() == pi.Null:
		return tip{isNull: true, raw: "null"}
	}
	return tip{raw: string(raw)}
}

// Create is fork.ts createForkSnapshot.
func Create(src Source, opts Options) (Snapshot, error) {
	byID := make(map[string]*store.StoredEntry, len(src.Entries))
	for i := range src.Entries {
		byID[src.Entries[i].Entry.ID] = &src.Entries[i]
	}
	var tips []store.StoredValue
	for _, v := range src.Values {
		if v.Address.Namespace == NSBranchTip {
			tips = append(tips, v)
		}
	}
	lanes := laneValues(src.Values)
	if err := validate(src, byID, tips, lanes, opts); err != nil {
		return Snapshot{}, err
	}
	entryIDs, destTips, err := selectContents(src, byID, tips, opts)
	if err != nil {
		return Snapshot{}, err
	}
	var snap Snapshot
	var maxSeq int64
	for _, e := range src.Entries {
		if entryIDs[e.Entry.ID] {
			snap.Entries = append(snap.Entries, e)
			maxSeq = max(maxSeq, e.Seq)
		}
	}
	next := maxSeq + 1
	put := func(namespace, key string, value []byte) {
		snap.Values = append(snap.Values, store.StoredValue{
			Address: store.Address{Namespace: namespace, Key: key, Kind: store.KindValue},
			Value:   append([]byte(nil), value...), Seq: next})
		next++
	}
	for _, t := range destTips {
		put(NSBranchTip, t.branch, t.value)
		if cfg := lanes.configs[t.branch]; cfg != nil {
			put(NSLaneConfig, t.branch, cfg.Value)
			put(NSLaneState, t.branch, IdleLaneState)
		} else if opts.UnconfiguredLanes && lanes.states[t.branch] != nil {
			put(NSLaneState, t.branch, IdleLaneState)
		}
	}
	copied := func(id string) bool { return entryIDs[id] }
	for _, v := range src.Values {
		action, err := Classify(v.Address.Namespace, v.Address.Key, opts.Scope, copied)
		if err != nil {
			return Snapshot{}, err
		}
		if action == Copy {
			put(v.Address.Namespace, v.Address.Key, v.Value)
		}
	}
	snap.NextSeq = next
	return snap, nil
}

// Writes is fork.ts forkSnapshotWrites: every entry and value of the
// snapshot as a committed write, in seq order.
func (s Snapshot) Writes() []store.CommittedWrite {
	out := make([]store.CommittedWrite, 0, len(s.Entries)+len(s.Values))
	for _, e := range s.Entries {
		out = append(out, store.CommittedWrite{Write: store.InsertEntry(e.Entry), Seq: e.Seq, Timestamp: e.Timestamp})
	}
	for _, v := range s.Values {
		out = append(out, store.CommittedWrite{Write: store.SetValueRaw(v.Address, v.Value), Seq: v.Seq})
	}
	// Entries are in seq order and every value's seq is past the last
	// entry's, in order: the concatenation is already sorted.
	return out
}

// State builds the destination's store state (MemoryStorage.fromSnapshot:
// validateCommitted, applyValidated), with nextSeq at the snapshot's.
func (s Snapshot) State() (*store.State, error) {
	st := store.NewState()
	ws := s.Writes()
	if err := st.Validate(ws); err != nil {
		return nil, err
	}
	st.Apply(ws)
	if err := st.AdvanceNextSeq(s.NextSeq); err != nil {
		return nil, err
	}
	return st, nil
}

type destTip struct {
	branch string
	value  []byte
}

// selectContents is fork.ts selectForkContents.
func selectContents(src Source, byID map[string]*store.StoredEntry, tips []store.StoredValue, opts Options) (map[string]bool, []destTip, error) {
	ids := map[string]bool{}
	if opts.Scope == ScopeTree {
		for _, e := range src.Entries {
			ids[e.Entry.ID] = true
		}
		var dest []destTip
		for _, t := range tips {
			dest = append(dest, destTip{t.Address.Key, t.Value})
		}
		return ids, dest, nil
	}
	var sourceTip *store.StoredValue
	for i := range tips {
		if tips[i].Address.Key == opts.Branch {
			sourceTip = &tips[i]
			break
		}
	}
	if sourceTip == nil {
		return nil, nil, fmt.Errorf("Unknown source branch: %s", opts.Branch)
	}
	start := parseTip(sourceTip.Value)
	requested := start
	if opts.EntryID != nil {
		requested = tip{id: *opts.EntryID, isID: true, raw: *opts.EntryID}
	}
	found := requested.isNull
	tipValue := []byte("null")
	cur := start
	for !cur.isNull {
		var e *store.StoredEntry
		if cur.isID {
			e = byID[cur.id]
		}
		if e == nil {
			return nil, nil, fmt.Errorf("Corrupt source branch: missing parent %s", cur.raw)
		}
		switch {
		case requested.isID && e.Entry.ID == requested.id:
			found = true
			if opts.Position == Before {
				tipValue = optString(e.Entry.ParentID)
				if opts.bugs.on(bugBeforeKeepsEntry) {
					ids[e.Entry.ID] = true
				}
			} else {
				tipValue = optString(&e.Entry.ID)
				ids[e.Entry.ID] = true
			}
		case found:
			ids[e.Entry.ID] = true
		}
		if e.Entry.ParentID == nil {
			cur = tip{isNull: true}
		} else {
			cur = tip{id: *e.Entry.ParentID, isID: true, raw: *e.Entry.ParentID}
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("Fork entry %s is not on source branch %s", requested.raw, quote(opts.Branch))
	}
	return ids, []destTip{{opts.Branch, tipValue}}, nil
}

func optString(s *string) []byte {
	if s == nil {
		return []byte("null")
	}
	return pi.AppendQuote(nil, *s)
}

// validate is fork.ts validateForkSourceSnapshot.
func validate(src Source, byID map[string]*store.StoredEntry, tips []store.StoredValue, lanes lanes, opts Options) error {
	hasTip := map[string]bool{}
	for _, t := range tips {
		hasTip[t.Address.Key] = true
	}
	for _, v := range src.Values {
		if (v.Address.Namespace == NSLaneConfig || v.Address.Namespace == NSLaneState) && !hasTip[v.Address.Key] {
			return fmt.Errorf("Source session branch %s is missing branch.tip", quote(v.Address.Key))
		}
	}
	for _, t := range tips {
		branch := t.Address.Key
		cfg, state := lanes.configs[branch], lanes.states[branch]
		if (cfg == nil) != (state == nil) && !(opts.UnconfiguredLanes && state != nil) {
			return fmt.Errorf("Source session branch %s has incomplete lane state", quote(branch))
		}
		if opts.Scope == ScopeBranch && branch == opts.Branch && cfg == nil {
			return fmt.Errorf("Source branch %s is not a configured AgentLane", quote(opts.Branch))
		}
		if !src.Partial || opts.Scope == ScopeTree {
			tv := parseTip(t.Value)
			if !tv.isNull && (!tv.isID || byID[tv.id] == nil) {
				return fmt.Errorf("Source session branch %s has an unknown tip", quote(branch))
			}
		}
	}
	return nil
}

// lanes indexes the lane configurations and states by branch.
type lanes struct {
	configs, states map[string]*store.StoredValue
}

func laneValues(vs []store.StoredValue) lanes {
	l := lanes{configs: map[string]*store.StoredValue{}, states: map[string]*store.StoredValue{}}
	for i := range vs {
		switch vs[i].Address.Namespace {
		case NSLaneConfig:
			l.configs[vs[i].Address.Key] = &vs[i]
		case NSLaneState:
			l.states[vs[i].Address.Key] = &vs[i]
		}
	}
	return l
}

// quote is JSON.stringify of a string.
func quote(s string) string { return string(pi.AppendQuote(nil, s)) }
