// Package subject is the simulator's boundary to a system under test: one
// interface in pi's vocabulary (lane calls, the provider's stream events
// released one at a time, storage commits parked and released or dropped,
// process loss and reopen) and the observations a subject reports (lane
// events, committed transactions with their writes and values, consumed
// provider events, encoded frames, call results).
//
// A subject is driven step by step: every method returns once the subject
// is quiescent — nothing more happens until the simulator releases a
// parked commit, a provider event or a timer — with what it observed since
// the previous return. pi's own harness speaks the stdio protocol of
// corpus/peers/pi-agent-core/SUBJECT-PROTOCOL.md (props/pisubject is its Go
// client); any implementation that speaks it is a subject too.
//
// The runner (runner.go) draws every decision from a choice.Source and
// checks, transaction by transaction, what the subject commits against
// model/lane (oracle.go), with ids and times renamed by first appearance
// in the printed trace.
package subject

import (
	"encoding/json"

	"github.com/frameproof/frameproof/impl/store"
)

// Call names a lane call, as pi's Lane spells it.
type Call string

// The lane calls a subject accepts.
const (
	CallLane         Call = "lane" // Harness.lane: acquire (create) the lane; Open issues it
	CallPrompt       Call = "prompt"
	CallResume       Call = "resume"
	CallAbort        Call = "abort"
	CallSteer        Call = "steer"
	CallFollowUp     Call = "followUp"
	CallNextRun      Call = "nextRun"
	CallCancelQueued Call = "cancelQueued"
	// CallClose is Harness.close (runtime/harness.ts close): the lanes
	// sealed, the active drive admits no more commits, the commit already
	// parked may land; it returns once the session has closed.
	CallClose Call = "close"
	// CallWatch is Lane.watch (runtime/lane.ts watch): its value is the
	// watcher's snapshot (captureLaneSnapshot), taken on the lane's
	// mutation line.
	CallWatch Call = "watch"
	// CallDrive is Lane.drive (runtime/lane.ts drive) of the current
	// operation without a deferred-poll permit; arg is the operation id.
	CallDrive Call = "drive"
)

// Session is the kind of session storage a subject runs on.
type Session string

// Session kinds: pi's JSONL storage (durable: a new process reopens the
// file) and its memory storage (lost with the process).
const (
	SessionJSONL  Session = "jsonl"
	SessionMemory Session = "memory"
)

// Sessions lists the session kinds.
var Sessions = []Session{SessionJSONL, SessionMemory}

// Durable says whether a killed process's session can be reopened.
func (s Session) Durable() bool { return s == SessionJSONL }

// WriteKind is a write's kind, as pi's session/commit.ts spells it: the
// store's one set of names, so a subject's writes and the store's cannot
// spell a kind two ways.
type WriteKind = store.WriteKind

// Write kinds.
const (
	WriteEntry = store.WriteEntry
	WriteUsage = store.WriteUsage
	WriteValue = store.WriteValue
	WriteList  = store.WriteList
)

// WriteOp is a value's or list's operation ("" for entries and usage
// rows), the store's names.
type WriteOp = store.WriteOp

// Write operations.
const (
	OpSet    = store.OpSet
	OpDelete = store.OpDelete
	OpAppend = store.OpAppend
)

// Write is one write of a transaction in pi's shape: {kind, op, namespace,
// key, value} for values and lists, {kind:"entry", entry:{id, parentId,
// ...}} and {kind:"usage", row:{id, ...}}.
type Write struct {
	Kind      WriteKind       `json:"kind"`
	Op        WriteOp         `json:"op,omitempty"`
	Namespace string          `json:"namespace,omitempty"`
	Key       string          `json:"key,omitempty"`
	Value     json.RawMessage `json:"value,omitempty"`
	Entry     json.RawMessage `json:"entry,omitempty"`
	Row       json.RawMessage `json:"row,omitempty"`
}

// Commit is one transaction: parked (admitted to storage, not yet
// released) or committed.
type Commit struct {
	N      int     `json:"n"`
	Writes []Write `json:"writes"`
}

// Consumed is one provider event the subject's provider handed to the
// harness: a released scripted event, or one the provider made itself (an
// aborted request's error event).
type Consumed struct {
	Stream int             `json:"stream"`
	Index  int             `json:"index"`
	Event  json.RawMessage `json:"event"`
}

// Frame is one output of the harness's frame encoder, in order (Frame is
// null when the encoder produced none for the event).
type Frame struct {
	Type  string          `json:"type"`
	Frame json.RawMessage `json:"frame"`
}

// CallResult is a lane call's completion.
type CallResult struct {
	Call  int             `json:"call"`
	Name  Call            `json:"name"`
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

// Request is one provider request (a stream opened).
type Request struct {
	Stream   int  `json:"stream"`
	Messages int  `json:"messages"`
	Scripted bool `json:"scripted"`
	// Deferred is the handle id a deferred poll fetches ("" for a
	// generation request).
	Deferred string `json:"deferred,omitempty"`
}

// OpenStream is a stream with scripted events left to release.
type OpenStream struct {
	Stream int `json:"stream"`
	Next   int `json:"next"`
	Total  int `json:"total"`
}

// Streams is the provider's state.
type Streams struct {
	Requested int          `json:"requested"`
	Open      []OpenStream `json:"open"`
}

// Obs is what a subject observed since its previous report, plus its
// current parked commits, streams and timers.
type Obs struct {
	Commits  []Commit          `json:"commits"`
	Events   []json.RawMessage `json:"events"`
	Consumed []Consumed        `json:"consumed"`
	Frames   []Frame           `json:"frames"`
	Calls    []CallResult      `json:"calls"`
	Requests []Request         `json:"requests"`
	Dropped  int               `json:"dropped"`
	Parked   []Commit          `json:"parked"`
	Streams  Streams           `json:"streams"`
	Timers   []float64         `json:"timers"`
	Now      float64           `json:"now"`
}

// Model is the provider model a subject's scripted provider serves.
type Model struct {
	ID            string  `json:"id"`
	ContextWindow float64 `json:"contextWindow"`
	MaxTokens     float64 `json:"maxTokens"`
}

// Provider is the provider id a subject registers its scripted model under.
const Provider = "frameproof"

// OpenOptions open a process of the subject.
type OpenOptions struct {
	Session Session `json:"session"`
	// Path is the JSONL file (SessionJSONL).
	Path string `json:"path,omitempty"`
	// Reopen opens the existing file instead of creating it.
	Reopen bool `json:"reopen,omitempty"`
	// Now is the clock at open (ms).
	Now float64 `json:"now"`
	// Process numbers the process; ids a process mints carry it, so no
	// two processes mint the same id.
	Process int    `json:"process"`
	Lane    string `json:"lane"`
	Model   Model  `json:"model"`
	// Retry is the harness's retry option (nil: the subject's default).
	Retry *RetryPolicy `json:"retry,omitempty"`
}

// Subject is a system under test. Every method returns once the subject is
// quiescent, with what it observed meanwhile.
type Subject interface {
	// Open starts a process: it creates or reopens the session, attaches
	// the harness and issues CallLane (its commit parks like any other).
	Open(OpenOptions) (Obs, error)
	// Start issues a lane call without awaiting it; its result arrives in
	// a later Obs.Calls. arg is the message (steer, followUp, nextRun,
	// prompt) or the entry id (cancelQueued).
	Start(c Call, arg string) (Obs, error)
	// Script queues the events of the provider's next response.
	Script(events []json.RawMessage) error
	// ReleaseEvent hands the next scripted event of the open stream to the
	// harness.
	ReleaseEvent() (Obs, error)
	// ReleaseCommit releases parked commit i (pi's GatingStorage releases
	// in FIFO order: only 0) and waits until it landed.
	ReleaseCommit(i int) (Obs, error)
	// DropParked drops every parked commit and refuses every later one
	// (storage loss: a crash with queued writes).
	DropParked() (Obs, error)
	// Advance sets the clock, firing due timers.
	Advance(now float64) (Obs, error)
	// Observe reports without acting.
	Observe() (Obs, error)
	// Kill ends the process at once (SIGKILL for an external process);
	// Open with Reopen starts the next one.
	Kill() error
	// Close ends the subject.
	Close() error
}
