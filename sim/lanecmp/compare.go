// Package lanecmp compares impl/lane with model/lane: committed state read
// back from a storage backend, emitted events and snapshots, each as a
// cmp.Diff (-model +impl). The simulator (sim/lanesim) and the rapid-driven
// lockstep driver (props/lane) both call it after every step.
package lanecmp

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Reader reads a lane's committed state back from storage, remembering
// what it derived from each stored record's bytes. Committed entries, usage rows and frames
// never change once written, so a simulator that compares after every
// commit would otherwise re-parse the whole transcript each time (quadratic
// in the run's length). The memo is keyed by the raw bytes, never by id, so
// a record rewritten under the same id is derived afresh (by seq for
// storage whose seqs name its records: SeqNamed). The zero Reader is
// ready to use; a Reader is not safe for concurrent use.
type Reader struct {
	// Decode, when set, decodes op states instead of lane.DecodeState (a
	// caller that decodes the same bytes elsewhere shares its memo).
	Decode func([]byte) (*lane.OpState, error)
	// Parse, when set, parses stored JSON instead of pi.ParseJSON, likewise;
	// the values it returns are only read.
	Parse func([]byte) (pi.JSONValue, error)

	entries memo[entryMemo]
	usage   memo[usageMemo]
	frames  map[string]string
	// canonBuf is canonical's scratch (what it keeps is copied out)
	canonBuf []byte
	// elements are the canonical frames of list elements read back
	elements memo[string]
	ops      memo[opMemo]
	// values are the parsed branch tip, lane state and results: most
	// comparisons find them as they were
	values memo[valueMemo]
	// named is the SeqNamed storage the memos key by seq (seqNamed)
	named SeqNamed
	// view is the state last read from named when it is a Changes store
	// (readIncremental)
	view *view
	// VerifyViews, when set, makes every incremental read (ReadState of
	// a Changes store) read everything again too and fail unless the two
	// agree: the tests' proof that the view compares what a full read does.
	VerifyViews bool
}

type valueMemo struct {
	v   pi.JSONValue // shared: read, never changed
	err error
}

type opMemo struct {
	op     ml.Op
	taskID string // summary.deciding: the task the preparation is stored under
	err    error
}

type entryMemo struct {
	message, terminate string
	err                error
}

type usageMemo struct {
	entryID, usage string
	err            error
}

// Compare reads the committed state of the model's lane from st and returns
// an error holding the cmp.Diff (-model +storage) when it differs from the
// model's. extraListKeys are frame-list keys ("op:resp") the implementation
// was seen to touch; they are read too, so a list the model does not know
// about cannot hide. Equality is
// checked with equalStates first (a typed equality that holds only where
// cmp.Diff with EquateEmpty finds no difference); cmp.Diff runs only to
// decide and explain what equalStates could not.
func (r *Reader) Compare(st store.Storage, m *ml.Model, extraListKeys ...string) error {
	keys := append(m.ListKeys(), extraListKeys...)
	got, err := r.ReadState(st, m.Lane(), m.OpIDs(), keys)
	if err != nil {
		return err
	}
	if got.Pending, err = readPending(st, m.QueuedIDs()); err != nil {
		return err
	}
	// the model's own state, read only, for equalStates (which holds where
	// cmp.Diff finds no difference between got and the copy Committed
	// returns, whose lists are the non-empty ones: the model keeps no
	// empty list); the copy itself for the diff
	if equalStates(m.CommittedShared(), got) {
		return nil
	}
	if d := cmp.Diff(m.Committed(), got, cmpopts.EquateEmpty()); d != "" {
		return fmt.Errorf("lanecmp: committed state differs (-model +storage):\n%s", d)
	}
	return nil
}

// ReadState reads a lane's committed state from storage into the model's
// plain form. Storage cannot enumerate lists or operations, so the caller
// names them.
//
// From a Changes store (the simulator's reference) it reads again only what
// the commits since its last read wrote; VerifyViews checks that against a
// full read at every call.
func (r *Reader) ReadState(st store.Storage, laneName string, ops, listKeys []string) (ml.State, error) {
	if c, ok := st.(Changes); ok && r.seqNamed(st) {
		return r.readIncremental(c, laneName, ops, listKeys)
	}
	return r.readFull(st, laneName, ops, listKeys)
}

// ReadStateFull is ReadState reading everything again, whatever st is: the
// check that an incremental view still agrees with the storage it follows.
func (r *Reader) ReadStateFull(st store.Storage, laneName string, ops, listKeys []string) (ml.State, error) {
	return r.readFull(st, laneName, ops, listKeys)
}

func (r *Reader) readFull(st store.Storage, laneName string, ops, listKeys []string) (ml.State, error) {
	s := ml.State{Ops: map[string]ml.Op{}, Results: map[string]ml.Result{}, Lists: map[string][]string{}}
	tip, err := r.readJSON(st, lane.BranchTipAddr(laneName))
	if err != nil {
		return s, err
	}
	s.Tip = str(tip)
	ls, err := r.readJSON(st, lane.LaneStateAddr(laneName))
	if err != nil {
		return s, err
	}
	s.Lane = ml.LaneRecord{Current: str(ls.Prop("currentOperationId")), Last: str(ls.Prop("lastOperationId")), Inbox: inboxOf(ls)}
	if cfg, err := st.GetValue(lane.LaneConfigAddr(laneName)); err != nil {
		return s, fmt.Errorf("lanecmp: read %s[%s]: %w", lane.NSLaneConfig, laneName, err)
	} else if cfg != nil {
		s.Config = r.canonical(cfg.Value)
	}
	if err := r.readEntries(st, &s); err != nil {
		return s, err
	}
	if err := r.readUsage(st, &s); err != nil {
		return s, err
	}
	for _, op := range ops {
		if err := r.readOp(st, op, &s); err != nil {
			return s, err
		}
	}
	return s, r.readLists(st, listKeys, &s)
}

func (r *Reader) readEntries(st store.Storage, s *ml.State) error {
	entries, err := st.Entries()
	if err != nil {
		return fmt.Errorf("lanecmp: read entries: %w", err)
	}
	if len(entries) > 0 {
		s.Entries = make([]ml.Entry, 0, len(entries))
	}
	s.Entries, err = r.appendEntries(s.Entries, entries, r.seqNamed(st))
	return err
}

// appendEntries appends the model form of entries (read from storage that
// is SeqNamed when named is set).
func (r *Reader) appendEntries(out []ml.Entry, entries []store.StoredEntry, named bool) ([]ml.Entry, error) {
	for _, e := range entries {
		memo, ok := r.entries.get(named, e.Seq, e.Entry.Raw)
		if !ok {
			v, err := r.parse(e.Entry.Raw)
			memo = entryMemo{err: err}
			if err == nil {
				memo.message = jsonText(v.Prop("message"))
				if t := v.Prop("terminate"); !t.IsUndefined() {
					memo.terminate = jsonText(t)
				}
			}
			r.entries.put(named, e.Seq, e.Entry.Raw, memo)
		}
		if memo.err != nil {
			return out, fmt.Errorf("lanecmp: entry %s (seq %d): %w", e.Entry.ID, e.Seq, memo.err)
		}
		parent := ""
		if e.Entry.ParentID != nil {
			parent = *e.Entry.ParentID
		}
		out = append(out, ml.Entry{ID: e.Entry.ID, Parent: parent, Message: memo.message, Terminate: memo.terminate})
	}
	return out, nil
}

func (r *Reader) readUsage(st store.Storage, s *ml.State) error {
	usage, err := st.Usage()
	if err != nil {
		return fmt.Errorf("lanecmp: read usage: %w", err)
	}
	if len(usage) > 0 {
		s.Usage = make([]ml.UsageRow, 0, len(usage))
	}
	s.Usage, err = r.appendUsage(s.Usage, usage, r.seqNamed(st))
	return err
}

// appendUsage appends the model form of usage rows, as appendEntries.
func (r *Reader) appendUsage(out []ml.UsageRow, usage []store.StoredUsage, named bool) ([]ml.UsageRow, error) {
	for _, u := range usage {
		memo, ok := r.usage.get(named, u.Seq, u.Row.Raw)
		if !ok {
			v, err := r.parse(u.Row.Raw)
			memo = usageMemo{err: err}
			if err == nil {
				memo.entryID, memo.usage = str(v.Prop("entryId")), jsonText(v.Prop("usage"))
			}
			r.usage.put(named, u.Seq, u.Row.Raw, memo)
		}
		if memo.err != nil {
			return out, fmt.Errorf("lanecmp: usage row %s (seq %d): %w", u.Row.ID, u.Seq, memo.err)
		}
		out = append(out, ml.UsageRow{ID: u.Row.ID, EntryID: memo.entryID, Usage: memo.usage})
	}
	return out, nil
}

func (r *Reader) readOp(st store.Storage, op string, s *ml.State) error {
	p, err := r.readOpPart(st, op)
	if err != nil {
		return err
	}
	if p.hasOp {
		s.Ops[op] = p.o
	}
	if p.hasRes {
		s.Results[op] = p.res
	}
	return nil
}

// readOpPart reads what ReadState keeps of one operation: its state (with
// the preparation a summary.deciding state names) and its result.
func (r *Reader) readOpPart(st store.Storage, op string) (opPart, error) {
	var p opPart
	sv, err := st.GetValue(lane.OpStateAddr(op))
	if err != nil {
		return p, fmt.Errorf("lanecmp: read op state %s: %w", op, err)
	}
	meta, err := st.GetValue(lane.OpMetaAddr(op))
	if err != nil {
		return p, fmt.Errorf("lanecmp: read op meta %s: %w", op, err)
	}
	if (sv == nil) != (meta == nil) {
		return p, fmt.Errorf("lanecmp: op %s: state present=%t but meta present=%t", op, sv != nil, meta != nil)
	}
	if sv != nil {
		named := r.seqNamed(st)
		memo, ok := r.ops.get(named, sv.Seq, sv.Value)
		if !ok {
			decode := r.Decode
			if decode == nil {
				decode = lane.DecodeState
			}
			os, err := decode(sv.Value)
			memo = opMemo{err: err}
			if err == nil {
				memo.op, memo.taskID = opOf(os), str(os.Task.Prop("taskId"))
			}
			r.ops.put(named, sv.Seq, sv.Value, memo)
		}
		if memo.err != nil {
			return p, fmt.Errorf("lanecmp: op state %s: %w", op, memo.err)
		}
		o := memo.op
		if o.At == string(lane.LeafSummaryDeciding) {
			if o.Preparation, err = readPreparation(st, op, memo.taskID); err != nil {
				return p, err
			}
		}
		p.o, p.hasOp = o, true
	} else if left, err := st.ScanValues(lane.NSPreparation, op+":"); err != nil {
		return p, fmt.Errorf("lanecmp: scan preparations of %s: %w", op, err)
	} else if len(left) > 0 {
		return p, fmt.Errorf("lanecmp: op %s has no state but its preparation %s survives", op, left[0].Address.Key)
	}
	rv, err := r.readJSON(st, lane.ResultAddr(op))
	if err != nil {
		return p, err
	}
	if !rv.IsUndefined() {
		e := rv.Prop("error")
		p.res = ml.Result{Status: str(rv.Prop("status")), ErrorCode: str(e.Prop("code")), ErrorMessage: str(e.Prop("message")),
			TipID: str(rv.Prop("tipId")), FromTipID: str(rv.Prop("fromTipId"))}
		if d := e.Prop("details"); !d.IsUndefined() {
			p.res.ErrorDetails = ml.Canonical(d.AppendJSON(nil))
		}
		p.hasRes = true
	}
	return p, nil
}

func (r *Reader) readLists(st store.Storage, listKeys []string, s *ml.State) error {
	seen := map[string]bool{}
	named := r.seqNamed(st)
	for _, k := range listKeys {
		if seen[k] {
			continue
		}
		seen[k] = true
		out, err := r.readList(st, k, named)
		if err != nil {
			return err
		}
		if out != nil {
			s.Lists[k] = out
		}
	}
	return nil
}

// readList reads the frame list k in the model's form (nil when it is
// empty), from storage that is SeqNamed when named is set.
func (r *Reader) readList(st store.Storage, k string, named bool) ([]string, error) {
	els, err := st.ReadList(store.Address{Namespace: lane.NSAssistantFrame, Key: k, Kind: store.KindList}, store.ReadOptions{Limit: 10_000})
	if err != nil {
		return nil, fmt.Errorf("lanecmp: read frame list %s: %w", k, err)
	}
	if len(els) == 0 {
		return nil, nil
	}
	out := make([]string, len(els))
	for i, e := range els {
		if !named {
			out[i] = r.canonical(e.Value)
			continue
		}
		c, ok := r.elements.bySeq[e.Seq]
		if !ok {
			c = r.canonical(e.Value)
			r.elements.put(true, e.Seq, nil, c)
		}
		out[i] = c
	}
	return out, nil
}

// parse is Parse, or pi.ParseJSON.
func (r *Reader) parse(raw []byte) (pi.JSONValue, error) {
	if r.Parse != nil {
		return r.Parse(raw)
	}
	return pi.ParseJSON(string(raw))
}

// canonical is ml.Canonical(raw), remembered by the bytes.
func (r *Reader) canonical(raw []byte) string {
	c, ok := r.frames[string(raw)]
	if !ok {
		if r.frames == nil {
			r.frames = map[string]string{}
		}
		key := string(raw)
		c = canonicalJSONIn(r.canonBuf[:0], key)
		if cap(r.canonBuf) < len(key) {
			r.canonBuf = make([]byte, 0, 2*len(key))
		}
		r.frames[key] = c
	}
	return c
}

// canonicalOnce is ml.Canonical(raw) not remembered: for bytes no later
// read canonicalizes again (an operation state, a lane state, a result a
// transaction wrote), which the memo would only copy and keep for the
// rest of the run.
func (r *Reader) canonicalOnce(raw []byte) string {
	s := string(raw)
	c := canonicalJSONIn(r.canonBuf[:0], s)
	if cap(r.canonBuf) < len(s) {
		r.canonBuf = make([]byte, 0, 2*len(s))
	}
	return c
}

// canonicalJSONIn is ml.Canonical(raw) (JSON.stringify(JSON.parse(raw)),
// or raw when it is not JSON), written into buf by pi.AppendRestringified
// where that answers (byte for byte the same: TestCanonicalJSONIsTheModels),
// else by ml.Canonical itself: raw itself when it is already in that form
// (most stored frames are), else a copy.
func canonicalJSONIn(buf []byte, raw string) string {
	if b, ok := pi.AppendRestringified(buf[:0], raw); ok {
		if string(b) == raw {
			return raw
		}
		return string(b)
	}
	return ml.Canonical([]byte(raw))
}

// opOf keeps the fields of each leaf that the model states.
func opOf(s *lane.OpState) ml.Op {
	o := ml.Op{At: string(s.At), CancelRequested: s.Control.CancelRequested}
	if o.CancelRequested {
		o.RequestedAt = s.Control.RequestedAt
	}
	if s.LatestAssistantEntryID != nil {
		o.LatestAssistantEntryID = *s.LatestAssistantEntryID
	}
	switch s.At {
	case lane.LeafAssistantReady:
		// the checkpoint's continuation the ready state carries, "" for
		// none (boundary.ts assistantReadyAtBoundary spreads the checkpoint;
		// generation.ts runRetryWait keeps only the scope)
		o.NextAttempt, o.Continuation = s.NextAttempt, s.Continuation.Kind
	case lane.LeafAssistantRetryWait:
		o.NextAttempt, o.NotBefore, o.RetryError = s.NextAttempt, s.NotBefore, s.ErrorMessage
	case lane.LeafAssistantEffectPending:
		o.Attempt, o.ResponseEntryID, o.UsageID = s.Attempt, s.ResponseEntryID, s.UsageID
	case lane.LeafDeferredEffectPending:
		o.ResponseEntryID, o.UsageID, o.Poll, o.SourceEntryID = s.ResponseEntryID, s.UsageID, s.Poll, s.SourceEntryID
	case lane.LeafDeferredSuspended:
		o.Poll, o.SourceEntryID = s.Poll, s.SourceEntryID
	case lane.LeafCheckpoint:
		o.Continuation = s.Continuation.Kind
	case lane.LeafTools:
		for _, c := range s.Calls {
			o.ToolCalls = append(o.ToolCalls, c.SourceIndex)
			o.ToolResultStamps = append(o.ToolResultStamps, ml.UUIDv7Stamp(c.ResultEntryID))
		}
	}
	return o
}

// readJSON reads and parses the value at a (undefined when it is absent),
// parsing each distinct value's bytes once.
func (r *Reader) readJSON(st store.Storage, a store.Address) (pi.JSONValue, error) {
	v, err := st.GetValue(a)
	if err != nil {
		return pi.JSONValue{}, fmt.Errorf("lanecmp: read %s[%s]: %w", a.Namespace, a.Key, err)
	}
	if v == nil {
		return pi.JSONValue{}, nil
	}
	named := r.seqNamed(st)
	memo, ok := r.values.get(named, v.Seq, v.Value)
	if !ok {
		memo.v, memo.err = r.parse(v.Value)
		r.values.put(named, v.Seq, v.Value, memo)
	}
	if memo.err != nil {
		return pi.JSONValue{}, fmt.Errorf("lanecmp: %s[%s] (seq %d): %w", a.Namespace, a.Key, v.Seq, memo.err)
	}
	return memo.v, nil
}

func str(v pi.JSONValue) string {
	if v.Kind() == pi.String {
		return v.Str()
	}
	return ""
}

// EventString is an implementation event in the model's event vocabulary.
func EventString(ev lane.Event) string {
	s := string(ev.Type)
	if ev.Recovery {
		s += "(recovery)"
	}
	switch ev.Type {
	case lane.EvRunEnd:
		return ml.RunEndEvent(runEndResult(ev), ev.EndedAt)
	case lane.EvConfigUpdate:
		s += ":" + ev.Property
	case lane.EvCompactionStart:
		return ml.CompactionStartEvent(ev.Reason, ev.StartedAt)
	case lane.EvRetryScheduled:
		return ml.RetryScheduledEvent(ev.TurnID, ev.Attempt, ev.MaxAttempts, ev.DelayMs, ev.NotBefore, ev.ErrorMessage)
	case lane.EvRetryStart:
		return ml.RetryStartEvent(ev.TurnID, ev.Attempt)
	case lane.EvRetryEnd:
		return ml.RetryEndEvent(ev.TurnID, ev.Attempt, ev.Success, ev.FinalError)
	case lane.EvOperationAbort:
		return ml.AbortEvent(ev.OperationID, canonicalEach(ev.Steer), canonicalEach(ev.FollowUp))
	}
	return s
}

// runEndResult is the result record a run_end event carries, in the
// model's form (null tips are "", details canonical JSON).
func runEndResult(ev lane.Event) ml.Result {
	r := ml.Result{Status: ev.Status, FromTipID: deref(ev.FromTipID), TipID: deref(ev.TipID)}
	if ev.Error != nil {
		r.ErrorCode, r.ErrorMessage = ev.Error.Code, ev.Error.Message
		if !ev.Error.Details.IsUndefined() {
			r.ErrorDetails = ml.Canonical(ev.Error.Details.AppendJSON(nil))
		}
	}
	return r
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// EventName is an event's type, recovery tag and the member that names
// its kind (run_end's status, config_update's property,
// compaction_start's reason), without the members EventString compares:
// a name for counting events by kind.
func EventName(ev lane.Event) string {
	s := string(ev.Type)
	if ev.Recovery {
		s += "(recovery)"
	}
	switch ev.Type {
	case lane.EvRunEnd:
		s += ":" + ev.Status
	case lane.EvConfigUpdate:
		s += ":" + ev.Property
	case lane.EvCompactionStart:
		s += ":" + ev.Reason
	}
	return s
}

// canonicalEach is each element of an array as canonical JSON.
func canonicalEach(v pi.JSONValue) []string {
	var out []string
	for _, e := range v.Array() {
		out = append(out, ml.Canonical(e.AppendJSON(nil)))
	}
	return out
}

// CompareEvents checks the implementation's events against the model's:
// equal when exact, else a prefix of them (the model may already know
// events the implementation is about to emit).
func CompareEvents(impl, model []string, exact bool) error {
	n := len(impl)
	if !exact && n <= len(model) {
		model = model[:n]
	}
	if d := cmp.Diff(model, impl, cmpopts.EquateEmpty()); d != "" {
		return fmt.Errorf("lanecmp: events differ (-model +impl):\n%s", d)
	}
	return nil
}

// CompareSnapshot checks a lane snapshot against the model's expectation.
func CompareSnapshot(s *lane.Snapshot, m *ml.Model) error {
	return compareSnapshot(s, m.Snapshot(), "snapshot")
}

// CompareCapture checks a capture (pi's captureLaneSnapshot) against the
// model's.
func CompareCapture(s *lane.Snapshot, m *ml.Model) error {
	return compareSnapshot(s, m.Capture(), "capture")
}

// CompareCaptureAt checks a capture against the model's capture taken at one
// cut (ml.Model.Capture), for a capture that waited on the line while the
// model moved.
func CompareCaptureAt(s *lane.Snapshot, want ml.Snapshot) error {
	return compareSnapshot(s, want, "capture")
}

func compareSnapshot(s *lane.Snapshot, want ml.Snapshot, what string) error {
	got, err := snapshotForm(s, ml.Canonical)
	if err != nil {
		return fmt.Errorf("lanecmp: %s: %w", what, err)
	}
	return CompareForms(got, want, what)
}

// SnapshotForm is a snapshot or capture in the model's form (ml.Snapshot),
// its streaming message rendered through the Reader's memo of canonical
// JSON: a capture compared with several model cuts, or a partial that
// stands still across snapshots, is rendered once.
func (r *Reader) SnapshotForm(s *lane.Snapshot) (ml.Snapshot, error) {
	return snapshotForm(s, r.canonical)
}

func snapshotForm(s *lane.Snapshot, canonical func([]byte) string) (ml.Snapshot, error) {
	got := ml.Snapshot{Live: s.Live, Truncated: s.FramesTruncated}
	if n := len(s.Transcript); n > 0 {
		got.Transcript = make([]string, 0, n) // one allocation, not a doubling per few ids
	}
	for _, e := range s.Transcript {
		got.Transcript = append(got.Transcript, e.ID)
	}
	if s.StreamingMessage != nil {
		b, err := pi.Marshal(s.StreamingMessage)
		if err != nil {
			return got, err
		}
		got.StreamingMessage = canonical(b)
	}
	return got, nil
}

// CompareForms compares a snapshot's form (SnapshotForm) with the model's
// expectation; what names it ("snapshot", "capture") in the error.
func CompareForms(got, want ml.Snapshot, what string) error {
	if equalForms(want, got) {
		return nil
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		return fmt.Errorf("lanecmp: %s differs (-model +impl):\n%s", what, d)
	}
	return nil
}

// readPreparation is the canonical JSON of the compaction preparation a
// summary.deciding state's task names ("" when it is missing).
func readPreparation(st store.Storage, op, taskID string) (string, error) {
	v, err := st.GetValue(lane.PreparationAddr(op, taskID))
	if err != nil {
		return "", fmt.Errorf("lanecmp: read preparation %s:%s: %w", op, taskID, err)
	}
	if v == nil {
		return "", nil
	}
	return ml.Canonical(v.Value), nil
}

// jsonText is string(v.AppendJSON(nil)), written in a buffer on the stack
// when it fits (the string is a copy either way).
func jsonText(v pi.JSONValue) string {
	var buf [512]byte
	return string(v.AppendJSON(buf[:0]))
}
