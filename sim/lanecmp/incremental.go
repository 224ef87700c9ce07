package lanecmp

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Changes is SeqNamed storage that also lists the addresses its commits
// wrote (the simulator's reference store). A Reader reading one keeps the
// committed state it read last and, at the next read, reads again only what
// the commits since wrote: a comparison after every commit no longer reads
// every operation and list a run has made (quadratic in its length).
type Changes interface {
	SeqNamed
	// WrittenSince returns the value and list addresses (namespace and key)
	// written, set, appended or deleted, by the commits logged from
	// position from on, and the log's end, the position to ask from next.
	// Entries and usage rows are only ever appended, so they need no log.
	WrittenSince(from int) ([]store.Address, int)
}

// view is the committed state a Reader last read from a Changes store, by
// part, as ReadState would read it again.
type view struct {
	st   Changes
	lane string
	pos  int // st's change log position the parts are current to
	tip  string
	ln   ml.LaneRecord
	cfg  string
	// entries and usage are the model forms of st's first entries and
	// usage rows (st only appends them)
	entries []ml.Entry
	usage   []ml.UsageRow
	// ops are the parts read per operation, lists per list key (nil: empty)
	ops   map[string]opPart
	lists map[string][]string
	// sOps, sResults and sLists are the state's maps of the last read
	// (shared with it), asked for lastOps and lastKeys (keepOnly)
	sOps              map[string]ml.Op
	sResults          map[string]ml.Result
	sLists            map[string][]string
	lastOps, lastKeys []string
	// dirty and preps are readView's scratch: the addresses written since
	// the last read, and the preparation keys among them
	dirty map[[2]string]bool
	preps []string
}

// opPart is what ReadState keeps of one operation.
type opPart struct {
	o      ml.Op
	hasOp  bool
	res    ml.Result
	hasRes bool
}

// readIncremental is ReadState on a Changes store through the view: the
// parts the commits since the last read wrote (and operations and lists
// not read before) are read again, in ReadState's order, so the first
// error is the one a full read reports; the others are as they were read
// (st's seqs name its records, so unwritten parts read the same). A read
// that fails drops the view: the next starts afresh.
func (r *Reader) readIncremental(st Changes, laneName string, ops, listKeys []string) (ml.State, error) {
	v := r.view
	if v == nil || v.st != st || v.lane != laneName {
		v = &view{st: st, lane: laneName, pos: -1}
	}
	r.view = nil
	s, err := r.readView(v, ops, listKeys)
	if err != nil {
		return s, err
	}
	r.view = v
	if r.VerifyViews {
		full, ferr := r.readFull(st, laneName, ops, listKeys)
		if ferr != nil {
			return s, fmt.Errorf("lanecmp: incremental view read, full read failed: %w", ferr)
		}
		if err := viewDiff(full, s); err != nil {
			return s, err
		}
	}
	return s, nil
}

// VerifyView reads st's committed state as ReadState does (through the
// incremental view, for a Changes store) and again in full, and returns an
// error unless the two reads agree: the check, once a run ends, that the
// view still follows the storage.
func (r *Reader) VerifyView(st store.Storage, laneName string, ops, listKeys []string) error {
	view, err := r.ReadState(st, laneName, ops, listKeys)
	full, ferr := r.readFull(st, laneName, ops, listKeys)
	if (err == nil) != (ferr == nil) || (err != nil && err.Error() != ferr.Error()) {
		return fmt.Errorf("lanecmp: incremental view read %v, a full read %v", err, ferr)
	}
	if err != nil {
		return nil
	}
	return viewDiff(full, view)
}

// viewDiff is nil when view holds what full does (equalStates first, the
// diff only to explain).
func viewDiff(full, view ml.State) error {
	if equalStates(full, view) {
		return nil
	}
	if d := cmp.Diff(full, view, cmpopts.EquateEmpty()); d != "" {
		return fmt.Errorf("lanecmp: incremental view differs from a full read (-full +view):\n%s", d)
	}
	return nil
}

func (r *Reader) readView(v *view, ops, listKeys []string) (ml.State, error) {
	st := v.st
	var s ml.State
	fresh := v.pos < 0
	from := v.pos
	if fresh {
		from = math.MaxInt // everything is read: only the log's end is wanted
	}
	written, end := st.WrittenSince(from)
	if v.dirty == nil {
		v.dirty = make(map[[2]string]bool, len(written))
	}
	clear(v.dirty)
	dirty, preps := v.dirty, v.preps[:0]
	for _, a := range written {
		dirty[[2]string{a.Namespace, a.Key}] = true
		if a.Namespace == lane.NSPreparation {
			preps = append(preps, a.Key)
		}
	}
	v.preps = preps
	touched := func(a store.Address) bool { return fresh || dirty[[2]string{a.Namespace, a.Key}] }
	v.pos = end

	if a := lane.BranchTipAddr(v.lane); touched(a) {
		tip, err := r.readJSON(st, a)
		if err != nil {
			return s, err
		}
		v.tip = str(tip)
	}
	s.Tip = v.tip
	if a := lane.LaneStateAddr(v.lane); touched(a) {
		ls, err := r.readJSON(st, a)
		if err != nil {
			return s, err
		}
		v.ln = ml.LaneRecord{Current: str(ls.Prop("currentOperationId")), Last: str(ls.Prop("lastOperationId")), Inbox: inboxOf(ls)}
	}
	s.Lane = v.ln
	if a := lane.LaneConfigAddr(v.lane); touched(a) {
		cfg, err := st.GetValue(a)
		if err != nil {
			return s, fmt.Errorf("lanecmp: read %s[%s]: %w", lane.NSLaneConfig, v.lane, err)
		}
		v.cfg = ""
		if cfg != nil {
			v.cfg = r.canonical(cfg.Value)
		}
	}
	s.Config = v.cfg
	entries, err := st.Entries()
	if err != nil {
		return s, fmt.Errorf("lanecmp: read entries: %w", err)
	}
	if len(entries) < len(v.entries) {
		v.entries = nil // not the append-only rows the view follows: all again
	}
	if v.entries, err = r.appendEntries(v.entries, entries[len(v.entries):], true); err != nil {
		return s, err
	}
	s.Entries = v.entries[:len(v.entries):len(v.entries)]
	usage, err := st.Usage()
	if err != nil {
		return s, fmt.Errorf("lanecmp: read usage: %w", err)
	}
	if len(usage) < len(v.usage) {
		v.usage = nil
	}
	if v.usage, err = r.appendUsage(v.usage, usage[len(v.usage):], true); err != nil {
		return s, err
	}
	s.Usage = v.usage[:len(v.usage):len(v.usage)]

	// the maps of the last read are updated in place: what is no longer
	// asked for is dropped, what was not read before or was written since
	// is read again
	v.keepOnly(ops, listKeys)
	for _, op := range ops {
		_, ok := v.ops[op]
		reread := !ok || touched(lane.OpStateAddr(op)) || touched(lane.OpMetaAddr(op)) || touched(lane.ResultAddr(op)) || prepWritten(preps, op)
		if !reread {
			continue
		}
		p, err := r.readOpPart(st, op)
		if err != nil {
			return s, err
		}
		v.ops[op] = p
		delete(v.sOps, op)
		delete(v.sResults, op)
		if p.hasOp {
			v.sOps[op] = p.o
		}
		if p.hasRes {
			v.sResults[op] = p.res
		}
	}
	for _, k := range listKeys {
		_, ok := v.lists[k]
		if ok && !touched(store.Address{Namespace: lane.NSAssistantFrame, Key: k}) {
			continue
		}
		els, err := r.readList(st, k, true)
		if err != nil {
			return s, err
		}
		v.lists[k] = els
		delete(v.sLists, k)
		if els != nil {
			v.sLists[k] = els
		}
	}
	s.Ops, s.Results, s.Lists = v.sOps, v.sResults, v.sLists
	return s, nil
}

// keepOnly makes the view's maps hold the operations and lists of ops and
// listKeys only: a read asked for other ones drops the parts of those no
// longer asked for (a later read asking again reads them afresh, as a
// rebuilt view would) instead of copying the others into new maps. The
// state a read returns shares the maps, so it is valid until the next.
func (v *view) keepOnly(ops, listKeys []string) {
	if v.ops == nil {
		v.ops, v.lists = make(map[string]opPart, len(ops)), make(map[string][]string, len(listKeys))
		v.sOps, v.sResults, v.sLists = make(map[string]ml.Op, len(ops)), make(map[string]ml.Result, len(ops)), make(map[string][]string, len(listKeys))
	}
	if !slices.Equal(ops, v.lastOps) {
		for _, op := range v.lastOps {
			if !slices.Contains(ops, op) {
				delete(v.ops, op)
				delete(v.sOps, op)
				delete(v.sResults, op)
			}
		}
		v.lastOps = append(v.lastOps[:0], ops...)
	}
	if !slices.Equal(listKeys, v.lastKeys) {
		for _, k := range v.lastKeys {
			if !slices.Contains(listKeys, k) {
				delete(v.lists, k)
				delete(v.sLists, k)
			}
		}
		v.lastKeys = append(v.lastKeys[:0], listKeys...)
	}
}

// prepWritten reports whether one of the written preparation keys is op's
// (a key op+":"+task, the prefix readOp scans).
func prepWritten(preps []string, op string) bool {
	for _, k := range preps {
		if strings.HasPrefix(k, op+":") {
			return true
		}
	}
	return false
}
