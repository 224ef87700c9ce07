package lanecmp

import (
	"slices"

	ml "github.com/frameproof/frameproof/model/lane"
)

// equalStates is the comparison's cheap equality, typed instead of
// reflect.DeepEqual (a tenth of the comparison's time): every field equal,
// slices and maps element by element. It holds only where cmp.Diff with
// cmpopts.EquateEmpty finds no difference (a nil and an empty slice or
// map are equal, as there), so a false answer only sends the comparison
// to cmp.Diff, which decides. TestEqualStatesSeesEveryField keeps it in
// step with the fields of ml.State.
func equalStates(a, b ml.State) bool {
	return a.Tip == b.Tip && a.Config == b.Config &&
		a.Lane.Current == b.Lane.Current && a.Lane.Last == b.Lane.Last && slices.Equal(a.Lane.Inbox, b.Lane.Inbox) &&
		slices.Equal(a.Entries, b.Entries) && slices.Equal(a.Usage, b.Usage) &&
		equalMaps(a.Ops, b.Ops, equalOps) &&
		equalMaps(a.Results, b.Results, func(x, y ml.Result) bool { return x == y }) &&
		equalMaps(a.Lists, b.Lists, slices.Equal[[]string]) &&
		slices.Equal(a.Pending, b.Pending)
}

func equalOps(a, b ml.Op) bool {
	return a.At == b.At && a.CancelRequested == b.CancelRequested && a.RequestedAt == b.RequestedAt &&
		a.LatestAssistantEntryID == b.LatestAssistantEntryID && a.Continuation == b.Continuation &&
		a.Attempt == b.Attempt && a.NextAttempt == b.NextAttempt && a.NotBefore == b.NotBefore && a.RetryError == b.RetryError &&
		a.ResponseEntryID == b.ResponseEntryID && a.UsageID == b.UsageID &&
		a.Poll == b.Poll && a.SourceEntryID == b.SourceEntryID &&
		slices.Equal(a.ToolCalls, b.ToolCalls) && slices.Equal(a.ToolResultStamps, b.ToolResultStamps) &&
		a.Preparation == b.Preparation
}

func equalMaps[V any](a, b map[string]V, eq func(x, y V) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		if !ok || !eq(x, y) {
			return false
		}
	}
	return true
}

// equalForms is CompareForms' cheap equality, as equalStates: a nil and an
// empty transcript are equal, as for cmp.Diff with EquateEmpty (a model
// snapshot of an empty branch and the lane's differ only so, and
// reflect.DeepEqual sent every such comparison to cmp.Diff).
// TestEqualFormsSeesEveryField keeps it in step with ml.Snapshot.
func equalForms(a, b ml.Snapshot) bool {
	return slices.Equal(a.Transcript, b.Transcript) && a.StreamingMessage == b.StreamingMessage &&
		a.Live == b.Live && a.Truncated == b.Truncated
}
