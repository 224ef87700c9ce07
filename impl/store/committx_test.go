package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func r2entry(id string, parent *string, typ string) Write {
	pj := "null"
	if parent != nil {
		pj = `"` + *parent + `"`
	}
	return InsertEntry(Entry{ID: id, ParentID: parent, Raw: json.RawMessage(`{"type":"` + typ + `","id":"` + id + `","parentId":` + pj + `}`)})
}

func r2describe(s *State) string {
	var b strings.Builder
	for _, w := range s.Snapshot() {
		fmt.Fprintf(&b, "%d %d %s %s %s", w.Seq, w.Timestamp, w.Kind, w.Namespace, w.Value)
		if e := w.Entry; e != nil {
			_, k, ok := s.GetEntryKind(e.ID)
			p := "<nil>"
			if e.ParentID != nil {
				p = *e.ParentID
			}
			fmt.Fprintf(&b, " e %s %s %s %+v %v", e.ID, p, e.Raw, k, ok)
			if br, err := s.ScanBranch(BranchScan{Start: e.ID}); err == nil {
				fmt.Fprintf(&b, " branch %d", br.Len())
			} else {
				fmt.Fprintf(&b, " branch err %v", err)
			}
		}
		if u := w.Usage; u != nil {
			fmt.Fprintf(&b, " u %s", u.ID)
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "stats %+v next %d", s.GetStats(), s.NextSeq())
	return b.String()
}

// Committing a Tx of entries (counted stamps, no copy) leaves a
// State exactly as committing the same writes does, errors included
// (duplicate ids within the Tx and against entries or usage rows already
// there, missing parents, self parents), over a run of commits.
func TestCommitTxAsCommit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := NewState(), NewState()
		ids := []string{"a", "b", "c", "d", "e", "f", ""}
		for c := range rapid.IntRange(1, 6).Draw(t, "commits") {
			var ws []Write
			n := rapid.IntRange(1, 5).Draw(t, "n")
			last := ""
			for i := range n {
				switch rapid.IntRange(0, 5).Draw(t, "kind") {
				case 0:
					if !rapid.Bool().Draw(t, "mixed") {
						break
					}
					id := rapid.SampledFrom(ids).Draw(t, "uid")
					ws = append(ws, InsertUsage(UsageRow{ID: id, Raw: json.RawMessage(`{"id":"` + id + `"}`)}))
					continue
				}
				id := rapid.SampledFrom(ids).Draw(t, "id")
				if rapid.IntRange(0, 3).Draw(t, "fresh") > 0 {
					id = fmt.Sprintf("x%d_%d", c, i)
				}
				var parent *string
				switch rapid.IntRange(0, 4).Draw(t, "parent") {
				case 0:
				case 1, 2:
					p := last
					parent = &p
				case 3:
					p := rapid.SampledFrom(ids).Draw(t, "pid")
					parent = &p
				default:
					p := id
					parent = &p
				}
				if parent != nil && *parent == "" && i == 0 && c == 0 {
					parent = nil
				}
				typ := rapid.SampledFrom([]string{"message", "custom", "compaction"}).Draw(t, "type")
				ws = append(ws, r2entry(id, parent, typ))
				last = id
			}
			tx, err := NewTx(ws)
			if err != nil {
				continue
			}
			ts := int64(1000 + c)
			ra, erra := a.CommitTx(tx, ts)
			rb, errb := b.Commit(tx.Writes(), ts)
			if fmt.Sprint(erra) != fmt.Sprint(errb) || fmt.Sprint(ra) != fmt.Sprint(rb) {
				t.Fatalf("commit %d: CommitTx %v %v, Commit %v %v", c, ra, erra, rb, errb)
			}
			if da, db := r2describe(a), r2describe(b); da != db {
				t.Fatalf("after commit %d:\nCommitTx:\n%s\nCommit:\n%s", c, da, db)
			}
		}
	})
}
