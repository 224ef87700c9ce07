package lane

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/fork"
)

// ForkCopiedNamespaces are the built-in value namespaces an idle fork
// reads: tips, lane config and lane state are reconstructed, the session
// name and entry labels are copied. pi.pending.*, pi.op.*, pi.result and
// usage rows are never copied.
var ForkCopiedNamespaces = []string{NSBranchTip, NSLaneConfig, NSLaneState, NSSessionName, NSEntryLabel}

// forkExcluded reports whether a namespace must never be copied by a fork.
func forkExcluded(ns string) bool {
	return strings.HasPrefix(ns, "pi.pending.") || strings.HasPrefix(ns, "pi.op.") || ns == NSResult
}

// ForkWrites returns the image of an idle tree fork of src as committed
// writes: pi's session/fork.ts createForkSnapshot (scope "tree", package
// impl/store/fork) over the values an idle fork reads — every entry keeps
// its seq; values get fresh seqs after the last entry — per source branch
// its tip, and for a configured lane its config and a rebuilt empty lane
// state {currentOperationId:null, lastOperationId:null, inbox:[]}; then the
// session name, the labels of copied entries and the values of
// extraNamespaces (fork-policy.ts classifyForkAddress: copy), in source seq
// order. Operation-owned families are refused, unknown pi.* namespaces are
// pi's "Unknown reserved fork namespace" error. Lists and usage rows are
// never copied. nextSeq is the destination's next seq (JSONL header
// nextSeq). Unlike pi's tree fork, application namespaces are copied only
// when named in ExtraNamespaces (src is a Storage, which cannot list its
// namespaces).
func ForkWrites(src store.Storage, opts ForkOptions) (writes []store.CommittedWrite, nextSeq int64, err error) {
	snap, err := forkSnapshot(src, opts)
	if err != nil {
		return nil, 0, err
	}
	return snap.Writes(), snap.NextSeq, nil
}

func forkSnapshot(src store.Storage, opts ForkOptions) (fork.Snapshot, error) {
	entries, err := src.Entries()
	if err != nil {
		return fork.Snapshot{}, fmt.Errorf("lane: fork: entries: %w", err)
	}
	var values []store.StoredValue
	for _, ns := range opts.ExtraNamespaces {
		if err := forkNamespaceAllowed(ns); err != nil {
			return fork.Snapshot{}, err
		}
	}
	for _, ns := range append(append([]string(nil), ForkCopiedNamespaces...), opts.ExtraNamespaces...) {
		vs, err := src.ScanValues(ns, "")
		if err != nil {
			return fork.Snapshot{}, fmt.Errorf("lane: fork: scan %s: %w", ns, err)
		}
		values = append(values, vs...)
	}
	bySeq(values)
	return fork.Create(fork.Source{Entries: entries, Values: values},
		fork.Options{Scope: fork.ScopeTree, UnconfiguredLanes: opts.UnconfiguredLanes})
}

// ForkOptions configure an idle tree fork.
type ForkOptions struct {
	// ExtraNamespaces are application namespaces to copy (scope "tree").
	ExtraNamespaces []string
	// UnconfiguredLanes accepts a lane state without pi.lane.config and
	// rebuilds it empty. frameproof's lane writes no lane config (pi's
	// harness writes it when a lane is created), so its own sessions need
	// this; pi refuses such a source ("has incomplete lane state"), which is
	// the default.
	UnconfiguredLanes bool
}

// forkNamespaceAllowed is classifyForkAddress for an extra namespace.
func forkNamespaceAllowed(ns string) error {
	if forkExcluded(ns) {
		return fmt.Errorf("lane: fork: namespace %s is operation-owned and never forked", ns)
	}
	for _, known := range ForkCopiedNamespaces {
		if ns == known {
			return fmt.Errorf("lane: fork: namespace %s is forked already", ns)
		}
	}
	if ns == "pi" || strings.HasPrefix(ns, "pi.") {
		return fmt.Errorf("Unknown reserved fork namespace: %s", ns)
	}
	return nil
}

// bySeq orders values as the source committed them.
func bySeq(vs []store.StoredValue) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Seq < vs[j].Seq })
}

// ForkState builds a store.State from ForkWrites (for the memory backend's
// FromState or a JSONL rewrite).
func ForkState(src store.Storage, opts ForkOptions) (*store.State, error) {
	snap, err := forkSnapshot(src, opts)
	if err != nil {
		return nil, err
	}
	st, err := snap.State()
	if err != nil {
		return nil, fmt.Errorf("lane: fork: %w", err)
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

func jsonString(s string) string { return string(pi.AppendQuote(nil, s)) }
