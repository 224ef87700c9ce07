package lane

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// ForkCopiedNamespaces are the built-in value namespaces an idle fork
// copies. pi.pending.*, pi.op.*, pi.result and usage rows are never copied.
var ForkCopiedNamespaces = []string{NSBranchTip, NSLaneConfig, NSLaneState, NSSessionName, NSEntryLabel}

// forkExcluded reports whether a namespace must never be copied by a fork.
func forkExcluded(ns string) bool {
	return strings.HasPrefix(ns, "pi.pending.") || strings.HasPrefix(ns, "pi.op.") || ns == NSResult
}

// ForkWrites returns the image of an idle fork of src as committed writes
// that keep their source seqs: every entry, and the values of
// ForkCopiedNamespaces plus extraNamespaces (excluded families are refused).
// Lists are never copied. nextSeq is the source's high-water mark, which the
// destination must persist (JSONL header nextSeq).
func ForkWrites(src store.Storage, extraNamespaces ...string) (writes []store.CommittedWrite, nextSeq int64, err error) {
	entries, err := src.Entries()
	if err != nil {
		return nil, 0, fmt.Errorf("lane: fork: entries: %w", err)
	}
	for _, e := range entries {
		ent := e.Entry
		writes = append(writes, store.CommittedWrite{Write: store.InsertEntry(ent), Seq: e.Seq, Timestamp: e.Timestamp})
	}
	for _, ns := range append(append([]string(nil), ForkCopiedNamespaces...), extraNamespaces...) {
		if forkExcluded(ns) {
			return nil, 0, fmt.Errorf("lane: fork: namespace %s is operation-owned and never forked", ns)
		}
		vals, err := src.ScanValues(ns, "")
		if err != nil {
			return nil, 0, fmt.Errorf("lane: fork: scan %s: %w", ns, err)
		}
		for _, v := range vals {
			writes = append(writes, store.CommittedWrite{Write: store.SetValueRaw(v.Address, v.Value), Seq: v.Seq})
		}
	}
	sort.SliceStable(writes, func(i, j int) bool { return writes[i].Seq < writes[j].Seq })
	return writes, src.NextSeq(), nil
}

// ForkState builds a store.State from ForkWrites (for the memory backend's
// FromState or a JSONL rewrite).
func ForkState(src store.Storage, extraNamespaces ...string) (*store.State, error) {
	writes, next, err := ForkWrites(src, extraNamespaces...)
	if err != nil {
		return nil, err
	}
	st := store.NewState()
	if err := st.Validate(writes); err != nil {
		return nil, fmt.Errorf("lane: fork: %w", err)
	}
	st.Apply(writes)
	if err := st.AdvanceNextSeq(next); err != nil {
		return nil, err
	}
	return st, nil
}

// FrameMapper rewrites one legacy frame element into the current shape. It
// returns ok=false when it cannot map the element.
type FrameMapper func(legacy json.RawMessage) (mapped json.RawMessage, ok bool)

// MigrateFrames applies a frame-shape migration to a storage image (as
// produced by store.State.Snapshot): per frame list, every element is
// mapped in place keeping its seq, or — if any element of that list cannot
// be mapped, or mapper is nil — the whole list is dropped, so recovery of
// its effect_pending sees no partial. It never touches operation state and
// never infers completion. It reports the list keys it dropped.
func MigrateFrames(image []store.CommittedWrite, mapper FrameMapper) (out []store.CommittedWrite, dropped []string, err error) {
	mapped := map[string][]json.RawMessage{}
	bad := map[string]bool{}
	for _, w := range image {
		if w.Kind != store.WriteList || w.Op != store.OpAppend || w.Namespace != NSAssistantFrame {
			continue
		}
		if mapper == nil {
			bad[w.Key] = true
			continue
		}
		m, ok := mapper(w.Value)
		if ok {
			if _, perr := pi.ParseFrame(string(m)); perr != nil {
				ok = false
			}
		}
		if !ok {
			bad[w.Key] = true
			continue
		}
		mapped[w.Key] = append(mapped[w.Key], m)
	}
	next := map[string]int{}
	for _, w := range image {
		if w.Kind == store.WriteList && w.Op == store.OpAppend && w.Namespace == NSAssistantFrame {
			if bad[w.Key] {
				continue
			}
			i := next[w.Key]
			next[w.Key]++
			w.Value = mapped[w.Key][i]
		}
		out = append(out, w)
	}
	for k := range bad {
		dropped = append(dropped, k)
	}
	sort.Strings(dropped)
	return out, dropped, nil
}
