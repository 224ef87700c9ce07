package store_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/store"
)

// ValidateApplyEntries must answer exactly as Validate followed by
// ApplyKinds: the same error (duplicates within the transaction and
// against the state, missing and self parents, seq order) and, on success,
// the same state; on an error the state is left as it was.
func TestValidateApplyEntriesMatchesValidateThenApply(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 6))
	id := func() string { return fmt.Sprintf("e%d", rng.IntN(40)) }
	for round := range 300 {
		ref, got := store.NewState(), store.NewState()
		// a usage row or two whose ids entries may repeat: a duplicate
		// of one must leave it a usage id
		for range rng.IntN(3) {
			u := id()
			for _, st := range []*store.State{ref, got} {
				ws, _, err := st.Prepare([]store.Write{store.InsertUsage(store.UsageRow{ID: u, Raw: json.RawMessage(
					fmt.Sprintf(`{"id":%q,"usage":{"cost":{}}}`, u))})}, 0)
				if err == nil {
					st.Apply(ws)
				}
			}
		}
		for tx := range 8 {
			n := 1 + rng.IntN(5)
			writes := make([]store.CommittedWrite, n)
			kinds := make([]store.EntryKind, n)
			seq := ref.NextSeq()
			for i := range writes {
				e := store.Entry{ID: id()}
				switch rng.IntN(4) {
				case 0: // a root
				case 1:
					if i > 0 {
						p := writes[i-1].Entry.ID
						e.ParentID = &p
						break
					}
					fallthrough
				default:
					p := id()
					if rng.IntN(10) == 0 {
						p = e.ID
					}
					e.ParentID = &p
				}
				e.Raw = json.RawMessage(fmt.Sprintf(`{"id":%q,"type":"message"}`, e.ID))
				if rng.IntN(30) == 0 {
					seq -= 2 // out of order
				}
				writes[i] = store.CommittedWrite{Write: store.Write{Kind: store.WriteEntry, Entry: &e}, Seq: seq, Timestamp: int64(tx)}
				kinds[i] = store.KindOf(e.Raw)
				seq++
			}
			want := ref.Validate(writes)
			if want == nil {
				ref.ApplyKinds(writes, kinds)
			}
			err := got.ValidateApplyEntries(writes, kinds)
			require.Equal(t, want, err, "round %d tx %d", round, tx)
			require.Equal(t, ref.NextSeq(), got.NextSeq())
			require.Empty(t, cmp.Diff(ref.Entries(), got.Entries()), "round %d tx %d", round, tx)
			for k := range 40 {
				i := fmt.Sprintf("e%d", k)
				require.Equal(t, ref.HasEntry(i), got.HasEntry(i))
				require.Equal(t, ref.HasEntryOrUsage(i), got.HasEntryOrUsage(i))
			}
		}
		if b := ref.Entries(); len(b) > 0 {
			last := b[len(b)-1].Entry.ID
			rs, err1 := ref.ScanBranchStructure(store.BranchScan{Start: last, Order: store.NewestFirst})
			gs, err2 := got.ScanBranchStructure(store.BranchScan{Start: last, Order: store.NewestFirst})
			require.Equal(t, err1, err2)
			require.Empty(t, cmp.Diff(rs.Slice(), gs.Slice()))
		}
	}
}
