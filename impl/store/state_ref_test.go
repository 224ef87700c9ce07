package store

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// refNamespaces and refKeys include the NUL pair that names one physical
// list in two ways: ("a\x00b", "c") and ("a", "b\x00c").
var (
	refNamespaces = []string{"a", "a\x00b", "n"}
	refKeys       = []string{"", "b", "b\x00c", "c", "k"}
)

// TestStateMatchesReference applies random transactions of every write
// kind to a State and to refState (State before the speed work) and
// requires every accessor to answer alike after each one. Lists are
// created and deleted often, so deleted lists' arrays are reused.
func TestStateMatchesReference(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 14))
		s, ref := NewState(), newRefState()
		seq := int64(1)
		for step := range 200 {
			var tx []CommittedWrite
			for range 1 + rng.IntN(4) {
				seq += 1 + int64(rng.IntN(2)) // replay may skip seqs
				tx = append(tx, CommittedWrite{Write: randomWrite(rng, seq), Seq: seq, Timestamp: seq * 10})
			}
			s.Apply(tx)
			ref.Apply(tx)
			requireSameState(t, s, ref, "seed "+strconv.Itoa(int(seed))+" step "+strconv.Itoa(step))
		}
	}
}

// randomWrite draws a write; entry and usage ids are unique by seq, as
// Validate requires.
func randomWrite(rng *rand.Rand, seq int64) Write {
	ns, key := refNamespaces[rng.IntN(len(refNamespaces))], refKeys[rng.IntN(len(refKeys))]
	addr := Address{Namespace: ns, Key: key}
	value := json.RawMessage(strconv.FormatInt(seq, 10))
	id := "id" + strconv.FormatInt(seq, 10)
	switch r := rng.IntN(20); {
	case r == 0:
		return InsertEntry(Entry{ID: id, Raw: json.RawMessage(`{"id":"` + id + `"}`)})
	case r == 1:
		return InsertUsage(UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `"}`)})
	case r < 5:
		return SetValueRaw(addr, value)
	case r < 6:
		return DeleteValueRaw(addr)
	case r < 8:
		return DeleteListRaw(addr)
	default:
		return AppendListRaw(addr, value)
	}
}

// requireSameState compares every read State offers.
func requireSameState(t *testing.T, s *State, ref *refState, where string) {
	t.Helper()
	require.Equal(t, ref.NextSeq(), s.NextSeq(), where)
	require.Equal(t, ref.Entries(), s.Entries(), where)
	require.Equal(t, ref.Usage(), s.Usage(), where)
	require.Equal(t, ref.Snapshot(), s.Snapshot(), where)
	for seq := s.NextSeq() - 8; seq <= s.NextSeq(); seq++ { // the ids a step can add
		id := "id" + strconv.FormatInt(seq, 10)
		require.Equal(t, ref.HasEntry(id), s.HasEntry(id), where)
		require.Equal(t, ref.HasEntryOrUsage(id), s.HasEntryOrUsage(id), where)
	}
	cursor := s.NextSeq() / 2
	for _, ns := range refNamespaces {
		require.Equal(t, ref.ListKeys(ns), s.ListKeys(ns), where)
		for _, prefix := range []string{"", "b"} {
			require.Equal(t, ref.ScanValues(ns, prefix), s.ScanValues(ns, prefix), where)
		}
		for _, key := range refKeys {
			addr := Address{Namespace: ns, Key: key}
			require.Equal(t, ref.GetValue(addr), s.GetValue(addr), where)
			for _, opts := range []ReadOptions{{Limit: 1000}, {Limit: 3, Order: Desc, Cursor: &cursor}} {
				want, werr := ref.ReadList(addr, opts)
				got, gerr := s.ReadList(addr, opts)
				require.Equal(t, werr, gerr, where)
				require.Equal(t, want, got, where)
			}
		}
	}
}
