package store

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
)

// This file is pi's Storage query surface (session/types.ts Storage:
// getEntries, scanBranch, scanBranchStructure, scanEntries, scanUsage,
// getStats), with the semantics of pi's InMemoryStorageState
// (session/in-memory-storage-state.ts), which MemoryStorage and
// JsonlStorage both serve.

// Querier is pi's Storage query surface. Backends implement it beside
// Storage (it is a separate interface so that the Storage wrappers of the
// simulator and the fault layers need not grow with it).
//
// Entries come back as an EntryList (structures as a StructureList): read
// in place from the store, as pi returns its entry objects rather than
// copies, and read-only, since At returns a copy. What a copy shares with
// the store is the memory it points into: an entry's Raw bytes and the
// string its ParentID points to (and an EntryStructure's ParentID), which
// must not be written through. Usage rows come back in a slice that is
// the caller's, except the same Raw bytes.
type Querier interface {
	// GetEntries returns the entries among ids that exist, each once, in
	// the order of their first occurrence in ids (pi's getEntries Map).
	GetEntries(ids []string) (EntryList, error)
	// ScanBranch walks from q.Start to its root (pi's scanBranch).
	ScanBranch(q BranchScan) (EntryList, error)
	// ScanBranchStructure is ScanBranch without the entries' payloads.
	ScanBranchStructure(q BranchScan) (StructureList, error)
	// ScanEntries scans every entry by seq (pi's scanEntries).
	ScanEntries(q EntryScan) (EntryList, error)
	// ScanUsage scans the usage ledger by seq (pi's scanUsage).
	ScanUsage(q UsageScan) ([]StoredUsage, error)
	// GetStats returns the session totals (pi's getStats).
	GetStats() (SessionStats, error)
}

// QueryStorage is a Storage with pi's whole query surface.
type QueryStorage interface {
	Storage
	Querier
}

// Branch scan orders (pi's BranchScan.order). Anything but OldestFirst
// reads newest first, as in pi.
const (
	NewestFirst = "newestFirst"
	OldestFirst = "oldestFirst"
)

// BranchScan is pi's StorageBranchScan. A nil field is pi's undefined.
// Limit follows Array.prototype.slice(0, max(0, limit)): negative is 0.
type BranchScan struct {
	Start      string
	StopAtType *string
	StopAtID   *string
	Type       *string
	CustomType *string
	Order      string
	Limit      *int64
	Cursor     *int64
}

// EntryScan is pi's EntryScan: inclusive seq bounds, Order Desc or
// anything else ascending, Limit max(0, limit).
type EntryScan struct {
	Type       *string
	CustomType *string
	FromSeq    *int64
	ToSeq      *int64
	Order      Order
	Limit      *int64
}

// UsageScan is pi's UsageScan.
type UsageScan struct {
	FromSeq *int64
	ToSeq   *int64
	Order   Order
	Limit   *int64
}

// EntryStructure is pi's EntryStructure: an entry without its payload.
// Type and CustomType are the entry's members as JSON text ("" when
// absent), shared with the store's index rather than copied per scan.
type EntryStructure struct {
	ID         string
	ParentID   *string
	Seq        int64
	Timestamp  int64
	Type       string
	CustomType string
}

// MarshalJSON encodes s as pi's scanBranchStructure builds it: id,
// parentId, seq, timestamp, type, then customType when present.
func (s EntryStructure) MarshalJSON() ([]byte, error) {
	b := []byte(`{"id":`)
	b = AppendJSString(b, s.ID)
	b = append(b, `,"parentId":`...)
	if s.ParentID == nil {
		b = append(b, "null"...)
	} else {
		b = AppendJSString(b, *s.ParentID)
	}
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, s.Seq, 10)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, s.Timestamp, 10)
	if s.Type != "" {
		b = append(b, `,"type":`...)
		b = append(b, s.Type...)
	}
	if s.CustomType != "" {
		b = append(b, `,"customType":`...)
		b = append(b, s.CustomType...)
	}
	return append(b, '}'), nil
}

// ErrUnknownBranchStart is the prefix of pi's "Unknown branch start: X".
var errCorruptBranch = errors.New("Corrupt branch: missing parent")

// UnknownBranchStartError is pi's "Unknown branch start: <id>".
type UnknownBranchStartError struct{ Start string }

func (e *UnknownBranchStartError) Error() string { return "Unknown branch start: " + e.Start }

// ErrCorruptBranch is pi's scanBranch error for a parent that is missing.
var ErrCorruptBranch = errCorruptBranch

// EntryKind is what the queries read of an entry besides its id and
// parent: its "type" and "customType" members as JSON (empty when absent).
type EntryKind struct {
	Type       string
	CustomType string
}

// KindOf reads an entry's type and customType members from its raw object.
func KindOf(raw json.RawMessage) EntryKind {
	var k EntryKind
	// a compact object (what Prepare stores) in one validating pass; the
	// last of repeated members wins, as in JSON.parse
	var typ, custom []byte
	if walkCompactObject(raw, func(key, value []byte) {
		switch string(key) {
		case `"type"`:
			typ = value
		case `"customType"`:
			custom = value
		}
	}) {
		if typ != nil {
			k.Type = internType(typ)
		}
		if custom != nil {
			k.CustomType = string(custom)
		}
		return k
	}
	if v, ok, err := member(raw, "type"); err == nil && ok {
		k.Type = internType(compactOr(v))
	}
	if v, ok, err := member(raw, "customType"); err == nil && ok {
		k.CustomType = string(compactOr(v))
	}
	return k
}

func compactOr(v json.RawMessage) json.RawMessage {
	if c, err := compactJSON(v); err == nil {
		return c
	}
	return v
}

// InternType is an entry's type member (JSON text) as EntryKind.Type
// holds it: the common types shared, not allocated per entry.
func InternType(v []byte) string { return internType(v) }

// internType is InternType; the common types are a switch, which cost
// less than a map's lookup per row committed.
func internType(v []byte) string {
	switch string(v) {
	case `"message"`:
		return `"message"`
	case `"custom"`:
		return `"custom"`
	case `"compaction"`:
		return `"compaction"`
	case `"branch_summary"`:
		return `"branch_summary"`
	}
	return string(v)
}

// jsonIs reports whether the JSON value v is the string s (pi's ===
// between a member and a query string); an absent member ("") never is.
func jsonIs(v string, s string) bool {
	if v == "" {
		return false
	}
	if inner, ok := plainJSONString([]byte(v)); ok {
		return string(inner) == s
	}
	var got string
	return v[0] == '"' && json.Unmarshal([]byte(v), &got) == nil && got == s
}

// matchOptional is pi's `query.x === undefined || candidate.x === query.x`.
func matchOptional(member string, want *string) bool {
	return want == nil || jsonIs(member, *want)
}

// stopsAt is pi's `candidate.id === query.stopAtId || candidate.type ===
// query.stopAtType`, where undefined === undefined: an entry without a
// type stops a scan that names no stopAtType.
func stopsAt(id string, k EntryKind, q *BranchScan) bool {
	if q.StopAtID != nil && id == *q.StopAtID {
		return true
	}
	if q.StopAtType == nil {
		return k.Type == ""
	}
	return jsonIs(k.Type, *q.StopAtType)
}

// sliceLimit is slice(0, max(0, limit)) as a count (-1: no limit).
func sliceLimit(limit *int64) int64 {
	if limit == nil {
		return -1
	}
	return max(0, *limit)
}

// Structure is e's EntryStructure given its kind.
func Structure(e StoredEntry, k EntryKind) EntryStructure {
	return EntryStructure{ID: e.Entry.ID, ParentID: e.Entry.ParentID, Seq: e.Seq, Timestamp: e.Timestamp,
		Type: k.Type, CustomType: k.CustomType}
}

// BranchHit is an entry a branch scan returns, with its kind.
type BranchHit struct {
	Entry StoredEntry
	Kind  EntryKind
}

// FilterBranch is the rest of pi's scanBranch given its path, newest
// first (path[0] is q.Start's entry, each next its parent, the last a
// root): the order, the stop, the type, customType and cursor filters,
// then the limit. It reorders path in place.
func FilterBranch(q BranchScan, path []BranchHit) []BranchHit {
	oldest := q.Order == OldestFirst
	if oldest {
		for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
			path[i], path[j] = path[j], path[i]
		}
	}
	stopped := len(path)
	for i, h := range path {
		if stopsAt(h.Entry.Entry.ID, h.Kind, &q) {
			stopped = i + 1
			break
		}
	}
	limit := sliceLimit(q.Limit)
	out := []BranchHit{}
	for _, h := range path[:stopped] {
		if limit >= 0 && int64(len(out)) >= limit {
			break
		}
		if !matchOptional(h.Kind.Type, q.Type) || !matchOptional(h.Kind.CustomType, q.CustomType) {
			continue
		}
		if q.Cursor != nil && ((oldest && h.Entry.Seq <= *q.Cursor) || (!oldest && h.Entry.Seq >= *q.Cursor)) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// MatchesEntryScan is pi's scanEntries filter for one entry.
func MatchesEntryScan(q *EntryScan, seq int64, k EntryKind) bool {
	return matchOptional(k.Type, q.Type) && matchOptional(k.CustomType, q.CustomType) &&
		(q.FromSeq == nil || seq >= *q.FromSeq) && (q.ToSeq == nil || seq <= *q.ToSeq)
}

// SeqBounds are the inclusive seq bounds of a scan (MinInt64/MaxInt64 when
// unbounded) and its limit (-1: none).
func SeqBounds(from, to, limit *int64) (lo, hi, n int64) {
	lo, hi = math.MinInt64, math.MaxInt64
	if from != nil {
		lo = *from
	}
	if to != nil {
		hi = *to
	}
	return lo, hi, sliceLimit(limit)
}

// SessionStats is pi's SessionStats: the number of message entries and the
// usage totals (utils/usage.ts addUsage over every usage row).
type SessionStats struct {
	MessageCount int64
	Usage        UsageTotals
}

// MarshalJSON encodes s as pi's getStats returns it.
func (s SessionStats) MarshalJSON() ([]byte, error) {
	b := []byte(`{"messageCount":`)
	b = strconv.AppendInt(b, s.MessageCount, 10)
	b = append(b, `,"usage":`...)
	b = s.Usage.appendJSON(b)
	return append(b, '}'), nil
}

// UsageTotals is pi's Usage as addUsage folds it, from emptyUsage(). Each
// field is a JS number; CacheWrite1h and Reasoning are present once a row
// has had them (pi's `left.x === undefined && right.x === undefined`).
type UsageTotals struct {
	Input, Output, CacheRead, CacheWrite, TotalTokens float64
	CacheWrite1h, Reasoning                           *float64
	Cost                                              struct{ Input, Output, CacheRead, CacheWrite, Total float64 }
}

func (u *UsageTotals) appendJSON(b []byte) []byte {
	num := func(b []byte, name string, x float64) []byte {
		b = append(b, name...)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return append(b, "null"...) // JSON.stringify
		}
		return pi.AppendNumber(b, x)
	}
	b = num(b, `{"input":`, u.Input)
	b = num(b, `,"output":`, u.Output)
	b = num(b, `,"cacheRead":`, u.CacheRead)
	b = num(b, `,"cacheWrite":`, u.CacheWrite)
	if u.CacheWrite1h != nil {
		b = num(b, `,"cacheWrite1h":`, *u.CacheWrite1h)
	}
	if u.Reasoning != nil {
		b = num(b, `,"reasoning":`, *u.Reasoning)
	}
	b = num(b, `,"totalTokens":`, u.TotalTokens)
	b = num(b, `,"cost":{"input":`, u.Cost.Input)
	b = num(b, `,"output":`, u.Cost.Output)
	b = num(b, `,"cacheRead":`, u.Cost.CacheRead)
	b = num(b, `,"cacheWrite":`, u.Cost.CacheWrite)
	b = num(b, `,"total":`, u.Cost.Total)
	return append(b, "}}"...)
}

// MarshalJSON encodes u in pi's Usage key order.
func (u UsageTotals) MarshalJSON() ([]byte, error) { return u.appendJSON(nil), nil }

// jsAddend is a JSON member as the right operand of JS `number + x`: a
// number is itself, null and false are 0, true is 1, an absent member
// (undefined) is NaN. A string, array or object would make pi's sum a
// string; frameproof folds it as NaN (such a row is outside pi's Usage type).
func jsAddend(v json.RawMessage, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	switch string(v) {
	case "null", "false":
		return 0
	case "true":
		return 1
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return math.NaN()
	}
	return x
}

// optionalAddend is `(right.x ?? 0)`, and whether right.x is undefined.
func optionalAddend(v json.RawMessage, ok bool) (float64, bool) {
	if !ok {
		return 0, false
	}
	if string(v) == "null" {
		return 0, true
	}
	return jsAddend(v, true), true
}

// AddUsageRow folds a usage row's raw object into u (pi's addUsage(stats.usage,
// row.usage)). The row must have passed CheckUsageTotals.
func (u *UsageTotals) AddUsageRow(row json.RawMessage) {
	usage, _, _ := member(row, "usage")
	u.Add(usage)
}

// Add folds one Usage object (raw JSON) into u.
func (u *UsageTotals) Add(usage json.RawMessage) {
	var room, costRoom [12]ObjectField // a Usage's members, without an allocation
	var f usageMembers
	f.read(objectFieldsInto(room[:0], usage))
	get := func(m usageMember) float64 { return jsAddend(m.v, m.ok) }
	u.Input += get(f.input)
	u.Output += get(f.output)
	u.CacheRead += get(f.cacheRead)
	u.CacheWrite += get(f.cacheWrite)
	for _, opt := range []struct {
		dst **float64
		m   usageMember
	}{{&u.CacheWrite1h, f.cacheWrite1h}, {&u.Reasoning, f.reasoning}} {
		x, defined := optionalAddend(opt.m.v, opt.m.ok)
		if *opt.dst == nil && !defined {
			continue
		}
		sum := x
		if *opt.dst != nil {
			sum = **opt.dst + x
		}
		*opt.dst = &sum
	}
	u.TotalTokens += get(f.totalTokens)
	var c usageMembers
	c.read(objectFieldsInto(costRoom[:0], f.cost.v))
	u.Cost.Input += get(c.input)
	u.Cost.Output += get(c.output)
	u.Cost.CacheRead += get(c.cacheRead)
	u.Cost.CacheWrite += get(c.cacheWrite)
	u.Cost.Total += get(c.total)
}

// usageMember is an object member's value and whether the object has it.
type usageMember struct {
	v  json.RawMessage
	ok bool
}

// usageMembers are the members addUsage reads of a Usage object or of its
// cost object (total only of a cost).
type usageMembers struct {
	input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning, totalTokens, cost, total usageMember
}

// read takes fs's members in order, so that a repeated key's last value
// wins, as it does in JSON.parse (and did in the map this replaced).
func (f *usageMembers) read(fs []ObjectField) {
	for _, x := range fs {
		var m *usageMember
		switch x.Key {
		case "input":
			m = &f.input
		case "output":
			m = &f.output
		case "cacheRead":
			m = &f.cacheRead
		case "cacheWrite":
			m = &f.cacheWrite
		case "cacheWrite1h":
			m = &f.cacheWrite1h
		case "reasoning":
			m = &f.reasoning
		case "totalTokens":
			m = &f.totalTokens
		case "cost":
			m = &f.cost
		case "total":
			m = &f.total
		default:
			continue
		}
		*m = usageMember{x.Value, true}
	}
}

// objectFieldsInto is objectFields appending to fields; nil when v is not
// an object. A compact object without repeated keys (what Prepare
// commits) is split in place; anything else is decoded through a map.
func objectFieldsInto(fields []ObjectField, v json.RawMessage) []ObjectField {
	if len(v) == 0 || v[0] != '{' {
		return nil
	}
	if validCompact(v) {
		if fs, err := appendCompactObject(fields, v); err == nil {
			return fs
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil
	}
	for k, x := range m {
		fields = append(fields, ObjectField{Key: k, Value: x})
	}
	return fields
}

// IsMessage reports whether an entry of kind k counts as a message in
// pi's stats (entry.type === "message").
func (k EntryKind) IsMessage() bool { return jsonIs(k.Type, "message") }

// Fold adds committed writes to the totals as pi's applyValidated does:
// a message entry counts, a usage row's usage is added.
func (s *SessionStats) Fold(writes []CommittedWrite) { s.FoldKinds(writes, nil) }

// FoldKinds is Fold given the entries' kinds as PrepareKinds returns them
// (nil: read from the rows).
func (s *SessionStats) FoldKinds(writes []CommittedWrite, kinds []EntryKind) {
	for i := range writes {
		w := &writes[i]
		switch w.Kind {
		case WriteEntry:
			k := EntryKind{}
			if kinds != nil {
				k = kinds[i]
			} else {
				k = KindOf(w.Entry.Raw)
			}
			if k.IsMessage() {
				s.MessageCount++
			}
		case WriteUsage:
			s.Usage.AddUsageRow(w.Usage.Raw)
		}
	}
}

// UnmarshalJSON reads what MarshalJSON wrote (null is NaN).
func (s *SessionStats) UnmarshalJSON(b []byte) error {
	var raw struct {
		MessageCount int64           `json:"messageCount"`
		Usage        json.RawMessage `json:"usage"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	var u map[string]json.RawMessage
	if err := json.Unmarshal(raw.Usage, &u); err != nil {
		return err
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(u["cost"], &c); err != nil {
		return err
	}
	num := func(m map[string]json.RawMessage, k string) float64 {
		if string(m[k]) == "null" {
			return math.NaN()
		}
		x, _ := strconv.ParseFloat(string(m[k]), 64)
		return x
	}
	t := UsageTotals{Input: num(u, "input"), Output: num(u, "output"), CacheRead: num(u, "cacheRead"),
		CacheWrite: num(u, "cacheWrite"), TotalTokens: num(u, "totalTokens")}
	if _, ok := u["cacheWrite1h"]; ok {
		x := num(u, "cacheWrite1h")
		t.CacheWrite1h = &x
	}
	if _, ok := u["reasoning"]; ok {
		x := num(u, "reasoning")
		t.Reasoning = &x
	}
	t.Cost.Input, t.Cost.Output, t.Cost.CacheRead = num(c, "input"), num(c, "output"), num(c, "cacheRead")
	t.Cost.CacheWrite, t.Cost.Total = num(c, "cacheWrite"), num(c, "total")
	*s = SessionStats{MessageCount: raw.MessageCount, Usage: t}
	return nil
}
