package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
)

// The queuer's steer, followUp and nextRun items leave the inbox as
// entries both at a run's boundary (runtime/drive/boundary.ts
// planBoundaryInbox) and at a later run's acceptance (runtime/lane.ts
// acceptRun, selectAcceptedInbox), and one commit places several items (an
// acceptance, or a boundary under steeringMode or followUpMode "all"): a
// bounded seed search reaches each,
// with the lockstep model comparing each placement's writes and the
// inbox checker (check_inbox.go) each item's single, ordered exit.
func TestSwarmPlacesQueuedInputAtBoundaryAndAcceptance(t *testing.T) {
	reached := searchSwarm(t, 300, rowQueuedInput, func(r map[string]int) bool {
		return r[orderPlacedAtStep] >= 5 && r[orderPlacedAtStart] >= 3 && r[orderPlacedSeveral] >= 2
	})
	require.GreaterOrEqual(t, reached[orderPlacedSeveral], 2, "%v", reached)
	require.GreaterOrEqual(t, reached[orderPlacedAtStep], 5, "%v", reached)
	require.GreaterOrEqual(t, reached[orderPlacedAtStart], 3, "%v", reached)
}

// enqueueWrites is an enqueue's commit (runtime/lane.ts enqueue): the
// pending entry, then the lane state whose inbox ends with the item.
func enqueueWrites(id string, inbox string) []store.Write {
	return []store.Write{
		store.SetValueRaw(lane.PendingEntryAddr(id), []byte(`{"type":"message","payload":{"role":"user","content":"x","timestamp":1}}`)),
		store.SetValueRaw(lane.LaneStateAddr("main"), []byte(`{"currentOperationId":null,"lastOperationId":null,"inbox":`+inbox+`}`)),
	}
}

// placeWrites places id (an entry and its pending delete) and writes the
// remaining inbox.
func placeWrites(id, inbox string) []store.Write {
	return []store.Write{
		store.InsertEntry(store.Entry{ID: id, Raw: []byte(`{}`)}),
		store.DeleteValueRaw(lane.PendingEntryAddr(id)),
		store.SetValueRaw(lane.LaneStateAddr("main"), []byte(`{"currentOperationId":"op","lastOperationId":null,"inbox":`+inbox+`}`)),
	}
}

// The inbox checker reports a steer placed while an earlier steer stays
// queued (pi takes the first: boundary.ts planBoundaryInbox) and an item
// placed twice, and stays quiet on the first steer placed first.
func TestInboxCheckerReportsOutOfOrderAndRepeatedPlacement(t *testing.T) {
	both := `[{"entryId":"s1","kind":"steer"},{"entryId":"s2","kind":"steer"}]`
	feed := func(commits ...[]store.Write) *runner {
		r := bareRunner()
		c := &inboxChecker{r: r}
		for _, ws := range commits {
			if !c.commit(commitEvent{ws: ws}) {
				break
			}
		}
		return r
	}
	queue := [][]store.Write{enqueueWrites("s1", `[{"entryId":"s1","kind":"steer"}]`), enqueueWrites("s2", both)}
	r := feed(append(queue, placeWrites("s1", `[{"entryId":"s2","kind":"steer"}]`))...)
	require.False(t, r.failed)
	r = feed(append(queue, placeWrites("s2", `[{"entryId":"s1","kind":"steer"}]`))...)
	require.True(t, r.failed, "a later steer placed first")
	r = feed(append(queue, placeWrites("s1", `[{"entryId":"s2","kind":"steer"}]`), placeWrites("s1", `[]`))...)
	require.True(t, r.failed, "an item placed twice")
}
