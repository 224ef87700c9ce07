package store_test

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
)

// A lane's first write: one transaction that inserts a transcript entry and
// appends a frame to its frame list. Both land or neither does, and they
// take consecutive seqs from the store's one write sequence.
func Example() {
	s := memory.New(envtest.NewClock(1000)) // fixed clock: fixed commit timestamps
	defer s.Close()

	frames := store.MustList[json.RawMessage]("frames", "entry-1")
	entry := store.InsertEntry(store.Entry{ID: "entry-1",
		Raw: json.RawMessage(`{"type":"message","id":"entry-1","parentId":null}`)})
	frame := store.AppendListRaw(frames.Address, json.RawMessage(`{"type":"text_delta","contentIndex":0,"delta":"Hi"}`))

	res, err := s.Commit([]store.Write{entry, frame})
	if err != nil {
		fmt.Println("commit:", err)
		return
	}
	fmt.Println("committed seqs:", res.Seqs, "at", res.Timestamp)

	entries, _ := s.Entries()
	for _, e := range entries {
		fmt.Println("entry", e.Entry.ID, "seq", e.Seq)
	}
	list, _ := s.ReadList(frames.Address, store.ReadOptions{})
	for _, el := range list {
		fmt.Println("frame seq", el.Seq, string(el.Value))
	}
	fmt.Println("next seq:", s.NextSeq())
	// Output:
	// committed seqs: [1 2] at 1000
	// entry entry-1 seq 1
	// frame seq 2 {"type":"text_delta","contentIndex":0,"delta":"Hi"}
	// next seq: 3
}
