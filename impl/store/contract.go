// Package store is frameproof's transactional store: typed value and list
// addresses, all-or-none commits under one global write sequence, and the FIFO
// mutation Line with fenced work. The backends implement Storage, each in its
// own package and listed once, in impl/store/backends; see
// pi-durability-facts.md §1–3 for the rules they follow.
//
// This file is the package's public contract, shared by impl/lane and sim/.
package store

import (
	"encoding/json"

	"github.com/frameproof/frameproof/impl/env"
)

// AddressKind distinguishes scalar values from lists.
type AddressKind string

// The two address kinds.
const (
	KindValue AddressKind = "value"
	KindList  AddressKind = "list"
)

// Address is an erased storage address. The physical key is
// Namespace + "\x00" + Key; value and list addresses never collide with each
// other because they live in separate tables, as in pi.
type Address struct {
	Namespace string
	Key       string
	Kind      AddressKind
}

// ValueAddr is a typed scalar address; T is a phantom type parameter.
type ValueAddr[T any] struct{ Address }

// ListAddr is a typed list address; T is a phantom type parameter.
type ListAddr[T any] struct{ Address }

// WriteKind names the four record kinds a transaction may contain.
type WriteKind string

// Write kinds, spelled as pi spells them in JSONL records.
const (
	WriteEntry WriteKind = "entry"
	WriteUsage WriteKind = "usage"
	WriteValue WriteKind = "value"
	WriteList  WriteKind = "list"
)

// WriteOp is the operation of a value or list write.
type WriteOp string

// Value ops are set/delete; list ops are append/delete.
const (
	OpSet    WriteOp = "set"
	OpDelete WriteOp = "delete"
	OpAppend WriteOp = "append"
)

// Entry is an immutable transcript entry. Raw is the entry object exactly as
// pi serializes it (id, parentId, type, message, …), compact JSON; ID and
// ParentID duplicate its fields for validation. ParentID nil means a root.
type Entry struct {
	ID       string
	ParentID *string
	Raw      json.RawMessage
}

// UsageRow is an immutable usage row. Raw is the row object as pi serializes
// it (id, usage, entryId?, adjustment, details?).
type UsageRow struct {
	ID  string
	Raw json.RawMessage
}

// Write is one erased write of a transaction. Exactly the fields of its kind
// are set: Entry for entries, Usage for usage rows, Namespace/Key (and Value
// for set/append) for value and list writes.
type Write struct {
	Kind      WriteKind
	Op        WriteOp
	Entry     *Entry
	Usage     *UsageRow
	Namespace string
	Key       string
	Value     json.RawMessage
}

// CommitResult describes an acknowledged transaction. Write i got
// Seqs[i] = FirstSeq + i. An empty commit returns FirstSeq = next seq and no seqs.
type CommitResult struct {
	FirstSeq  int64
	Seqs      []int64
	Timestamp int64 // Unix milliseconds, one per transaction
}

// StoredValue is a scalar value with the seq of the write that set it.
type StoredValue struct {
	Address Address
	Value   json.RawMessage
	Seq     int64
}

// ListElement is one immutable list element.
type ListElement struct {
	Seq   int64
	Value json.RawMessage
}

// StoredEntry is an entry with the seq and timestamp of its commit.
type StoredEntry struct {
	Entry     Entry
	Seq       int64
	Timestamp int64
}

// StoredUsage is a usage row with its seq.
type StoredUsage struct {
	Row UsageRow
	Seq int64
}

// Order is a list read direction.
type Order string

// List read orders.
const (
	Asc  Order = "asc"
	Desc Order = "desc"
)

// ReadOptions page a list. Cursor is exclusive (asc: seq > Cursor, desc:
// seq < Cursor); nil reads from the start. Limit 0 means the default (1000)
// unless LimitSet says the caller gave it; larger than 10,000 is clamped;
// negative, or 0 when given, is pi's ErrInvalidListLimit.
type ReadOptions struct {
	Cursor *int64
	Order  Order
	Limit  int
	// LimitSet: Limit was given, so 0 is pi's readList(list, {limit: 0})
	// (refused) and not "no limit given" (the default page). A Go zero
	// value cannot tell the two apart; pi's options object can.
	LimitSet bool
}

// Storage is one backend. Commit is all-or-none: on error nothing is applied.
// A backend is safe for concurrent use.
type Storage interface {
	Commit(writes []Write) (CommitResult, error)
	GetValue(addr Address) (*StoredValue, error)
	// ScanValues returns the values in namespace whose key starts with
	// keyPrefix, in ascending key order.
	ScanValues(namespace, keyPrefix string) ([]StoredValue, error)
	ReadList(addr Address, opts ReadOptions) ([]ListElement, error)
	// Entries and Usage return every row in seq order.
	Entries() ([]StoredEntry, error)
	Usage() ([]StoredUsage, error)
	// NextSeq is the seq the next non-empty commit's first write will get.
	NextSeq() int64
	Close() error
}

// Line is the FIFO mutation line: work runs strictly one item at a time in
// submission order. See line.go.
type LineWork func() error

// lineAPI documents Line's methods (implemented in line.go).
type lineAPI interface {
	// Run enqueues work and returns its future without waiting. The work
	// runs on the line's actor when every earlier item has finished.
	Run(name string, work LineWork) env.Future
	// Seal rejects later Run calls with err and returns the current tail,
	// so admitted work still drains.
	Seal(err error) env.Future
	// Drain waits for the current tail.
	Drain() error
}

var _ lineAPI = (*Line)(nil)
