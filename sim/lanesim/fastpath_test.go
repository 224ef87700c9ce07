package lanesim

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// keys kept sorted as they arrive are the set's keys sorted, as the
// comparison read them when it sorted the set at every call.
func TestFrameKeysAreTheSortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ls := &lockstep{}
		set := map[string]bool{}
		for _, k := range rapid.SliceOf(rapid.StringMatching(`[a-c]{0,3}:[a-c]{0,2}`)).Draw(t, "keys") {
			ls.noteFrameKey(k)
			set[k] = true
			if got, want := ls.keys(), slices.Sorted(maps.Keys(set)); !slices.Equal(got, want) {
				t.Fatalf("keys %q, the set sorted %q", got, want)
			}
		}
	})
}

// The invariants' operations, kept sorted as commits touch them, are the
// set of operation states and metas written, sorted (what each check
// sorted from a set before).
func TestInvariantOpsAreTheSortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := newInvariantChecker(nil)
		set := map[string]bool{}
		for range rapid.IntRange(0, 20).Draw(t, "commits") {
			var ws []store.Write
			for range rapid.IntRange(0, 4).Draw(t, "writes") {
				ns := rapid.SampledFrom([]string{lane.NSOpState, lane.NSOpMeta, lane.NSResult, lane.NSBranchTip}).Draw(t, "ns")
				key := rapid.StringMatching(`op[0-9]{1,2}`).Draw(t, "key")
				ws = append(ws, store.SetValueRaw(store.Address{Namespace: ns, Key: key, Kind: store.KindValue}, []byte(`{}`)))
				if ns == lane.NSOpState || ns == lane.NSOpMeta {
					set[key] = true
				}
			}
			c.noteOps(ws)
			if want := slices.Sorted(maps.Keys(set)); !slices.Equal(c.ops, want) {
				t.Fatalf("ops %q, the set sorted %q", c.ops, want)
			}
		}
	})
}

// sameCut, which decides whether a waiting capture gains a cut, answers
// what reflect.DeepEqual answers, nil and empty transcripts apart.
func TestSameCutIsDeepEqual(t *testing.T) {
	require.Equal(t, 4, reflect.TypeOf(ml.Snapshot{}).NumField(), "ml.Snapshot has fields sameCut does not compare")
	snap := rapid.Custom(func(t *rapid.T) ml.Snapshot {
		s := ml.Snapshot{StreamingMessage: rapid.SampledFrom([]string{"", "m", "n"}).Draw(t, "msg"),
			Live: rapid.Bool().Draw(t, "live"), Truncated: rapid.Bool().Draw(t, "truncated")}
		if rapid.Bool().Draw(t, "transcript") {
			s.Transcript = rapid.SliceOfN(rapid.SampledFrom([]string{"e1", "e2"}), 0, 2).Draw(t, "ids")
		}
		return s
	})
	rapid.Check(t, func(t *rapid.T) {
		a, b := snap.Draw(t, "a"), snap.Draw(t, "b")
		if sameCut(a, b) != reflect.DeepEqual(a, b) {
			t.Fatalf("sameCut(%#v, %#v) = %t", a, b, sameCut(a, b))
		}
		if !sameCut(a, a) {
			t.Fatalf("sameCut(%#v, itself) = false", a)
		}
	})
	require.False(t, sameCut(ml.Snapshot{}, ml.Snapshot{Transcript: []string{}}))
}

// The list keys kept sorted as commits write lists are the old code's:
// the indexed lists' keys sorted, and the assistant-frame lists' keys in that order
// (what every invariants check sorted and filtered before).
func TestListKeysAreTheSortedSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := bareRunner()
		nss := []string{lane.NSAssistantFrame, lane.NSOpState, "x", "x\x00y", ""}
		for range rapid.IntRange(0, 20).Draw(t, "commits") {
			var ws []store.Write
			for range rapid.IntRange(0, 4).Draw(t, "writes") {
				a := store.Address{Namespace: rapid.SampledFrom(nss).Draw(t, "ns"), Key: rapid.StringMatching(`[a-c\x00]{0,3}`).Draw(t, "key"), Kind: store.KindList}
				if rapid.Bool().Draw(t, "list") {
					ws = append(ws, store.AppendListRaw(a, []byte(`1`)))
				} else {
					ws = append(ws, store.SetValueRaw(store.Address{Namespace: a.Namespace, Key: a.Key}, []byte(`1`)))
				}
			}
			r.reference.lists.note(ws)
			want := slices.Sorted(maps.Keys(r.reference.lists.addrs))
			if got := r.reference.lists.sortedKeys(); !slices.Equal(got, want) {
				t.Fatalf("list keys %q, the set sorted %q", got, want)
			}
			var frames []string
			for _, k := range want {
				if a := r.reference.lists.addrs[k]; a.Namespace == lane.NSAssistantFrame {
					frames = append(frames, a.Key)
				}
			}
			if got := r.reference.lists.sortedFrameKeys(); !slices.Equal(got, frames) {
				t.Fatalf("frame keys %q, the set's frame lists %q", got, frames)
			}
		}
	})
}
