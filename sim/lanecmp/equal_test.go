package lanecmp

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	ml "github.com/frameproof/frameproof/model/lane"
)

func fullState() ml.State {
	return ml.State{
		Tip:     "e2",
		Config:  `{"model":{}}`,
		Lane:    ml.LaneRecord{Current: "op1", Last: "op0", Inbox: []ml.InboxItem{{EntryID: "q1", Kind: "steer"}}},
		Entries: []ml.Entry{{ID: "e1", Message: `{"role":"user"}`}, {ID: "e2", Parent: "e1", Message: `{"role":"assistant"}`}},
		Usage:   []ml.UsageRow{{ID: "u1", EntryID: "e2", Usage: `{"input":1}`}},
		Ops: map[string]ml.Op{"op1": {At: "tools", CancelRequested: true, RequestedAt: 5, LatestAssistantEntryID: "e2", Continuation: ml.MayFinish,
			Attempt: 1, NextAttempt: 2, NotBefore: 7, RetryError: "x", ResponseEntryID: "r1", UsageID: "u1", Poll: 3,
			SourceEntryID: "s1", ToolCalls: []int{0, 1}, ToolResultStamps: []string{"a", "b"}, Preparation: "{}"}},
		Results: map[string]ml.Result{"op0": {Status: "error", ErrorCode: "c", ErrorMessage: "m", TipID: "e1", FromTipID: "e0"}},
		Lists:   map[string][]string{"op1:r1": {"f1", "f2"}},
		Pending: []string{"q1"},
	}
}

// equalStates tells apart two states that differ in any one field, at
// every depth, and cmp.Diff (which decides after it) agrees; it equates
// only what cmp.Diff with EquateEmpty equates. The field counts pin the
// types it covers: a new field fails here until equalStates compares it.
func TestEqualStatesSeesEveryField(t *testing.T) {
	for typ, n := range map[reflect.Type]int{
		reflect.TypeOf(ml.State{}): 9, reflect.TypeOf(ml.LaneRecord{}): 3, reflect.TypeOf(ml.InboxItem{}): 2,
		reflect.TypeOf(ml.Entry{}): 4, reflect.TypeOf(ml.UsageRow{}): 3, reflect.TypeOf(ml.Op{}): 16, reflect.TypeOf(ml.Result{}): 6,
	} {
		require.Equal(t, n, typ.NumField(), "%s has fields equalStates does not compare", typ)
	}
	require.True(t, equalStates(fullState(), fullState()))
	op := func(f func(*ml.Op)) func(*ml.State) {
		return func(s *ml.State) { o := s.Ops["op1"]; f(&o); s.Ops["op1"] = o }
	}
	result := func(f func(*ml.Result)) func(*ml.State) {
		return func(s *ml.State) { r := s.Results["op0"]; f(&r); s.Results["op0"] = r }
	}
	for name, change := range map[string]func(*ml.State){
		"tip":             func(s *ml.State) { s.Tip = "e1" },
		"config":          func(s *ml.State) { s.Config = "" },
		"current":         func(s *ml.State) { s.Lane.Current = "" },
		"last":            func(s *ml.State) { s.Lane.Last = "op9" },
		"inbox id":        func(s *ml.State) { s.Lane.Inbox[0].EntryID = "q2" },
		"inbox kind":      func(s *ml.State) { s.Lane.Inbox[0].Kind = "followUp" },
		"inbox length":    func(s *ml.State) { s.Lane.Inbox = nil },
		"entry id":        func(s *ml.State) { s.Entries[0].ID = "e9" },
		"entry terminate": func(s *ml.State) { s.Entries[1].Terminate = "true" },
		"parent":          func(s *ml.State) { s.Entries[1].Parent = "" },
		"message":         func(s *ml.State) { s.Entries[1].Message = `{}` },
		"entries":         func(s *ml.State) { s.Entries = s.Entries[:1] },
		"usage id":        func(s *ml.State) { s.Usage[0].ID = "u2" },
		"usage entry":     func(s *ml.State) { s.Usage[0].EntryID = "e1" },
		"usage":           func(s *ml.State) { s.Usage[0].Usage = `{}` },
		"usage rows":      func(s *ml.State) { s.Usage = append(s.Usage, s.Usage[0]) },
		"op at":           op(func(o *ml.Op) { o.At = "ready" }),
		"cancel":          op(func(o *ml.Op) { o.CancelRequested = false }),
		"requested":       op(func(o *ml.Op) { o.RequestedAt = 6 }),
		"latest":          op(func(o *ml.Op) { o.LatestAssistantEntryID = "" }),
		"continuation":    op(func(o *ml.Op) { o.Continuation = ml.NeedAssistant }),
		"attempt":         op(func(o *ml.Op) { o.Attempt = 2 }),
		"next attempt":    op(func(o *ml.Op) { o.NextAttempt = 3 }),
		"not before":      op(func(o *ml.Op) { o.NotBefore = 8 }),
		"retry error":     op(func(o *ml.Op) { o.RetryError = "y" }),
		"response":        op(func(o *ml.Op) { o.ResponseEntryID = "r2" }),
		"usage id op":     op(func(o *ml.Op) { o.UsageID = "u2" }),
		"poll":            op(func(o *ml.Op) { o.Poll = 4 }),
		"source":          op(func(o *ml.Op) { o.SourceEntryID = "s2" }),
		"tool calls":      op(func(o *ml.Op) { o.ToolCalls = []int{0} }),
		"tool call":       op(func(o *ml.Op) { o.ToolCalls = []int{0, 2} }),
		"stamps":          op(func(o *ml.Op) { o.ToolResultStamps = []string{"a", "c"} }),
		"preparation":     op(func(o *ml.Op) { o.Preparation = "" }),
		"another op":      func(s *ml.State) { s.Ops["op2"] = ml.Op{} },
		"no ops":          func(s *ml.State) { s.Ops = nil },
		"status":          result(func(r *ml.Result) { r.Status = "done" }),
		"code":            result(func(r *ml.Result) { r.ErrorCode = "" }),
		"error":           result(func(r *ml.Result) { r.ErrorMessage = "n" }),
		"tip id":          result(func(r *ml.Result) { r.TipID = "e2" }),
		"from tip":        result(func(r *ml.Result) { r.FromTipID = "" }),
		"results":         func(s *ml.State) { s.Results = map[string]ml.Result{"op1": s.Results["op0"]} },
		"list":            func(s *ml.State) { s.Lists["op1:r1"] = []string{"f1", "f3"} },
		"list key":        func(s *ml.State) { s.Lists = map[string][]string{"op1:r2": {"f1", "f2"}} },
		"pending":         func(s *ml.State) { s.Pending = []string{"q2"} },
	} {
		s := fullState()
		change(&s)
		require.False(t, equalStates(fullState(), s), name)
		require.NotEmpty(t, cmp.Diff(fullState(), s, cmpopts.EquateEmpty()), name)
	}
	// nil and empty are equal, as for cmp.Diff with EquateEmpty
	a, b := ml.State{}, ml.State{Ops: map[string]ml.Op{}, Results: map[string]ml.Result{}, Lists: map[string][]string{}, Entries: []ml.Entry{}}
	require.True(t, equalStates(a, b))
	require.Empty(t, cmp.Diff(a, b, cmpopts.EquateEmpty()))
}

// equalForms tells apart two snapshot forms that differ in any one field,
// and cmp.Diff agrees; it equates only what cmp.Diff with EquateEmpty
// equates (nil and empty transcripts), and CompareForms reports each
// difference.
func TestEqualFormsSeesEveryField(t *testing.T) {
	require.Equal(t, 4, reflect.TypeOf(ml.Snapshot{}).NumField(), "ml.Snapshot has fields equalForms does not compare")
	full := func() ml.Snapshot {
		return ml.Snapshot{Transcript: []string{"e1", "e2"}, StreamingMessage: `{"role":"assistant"}`, Live: true, Truncated: true}
	}
	require.True(t, equalForms(full(), full()))
	require.NoError(t, CompareForms(full(), full(), "snapshot"))
	for name, change := range map[string]func(*ml.Snapshot){
		"transcript id":     func(s *ml.Snapshot) { s.Transcript[1] = "e3" },
		"transcript length": func(s *ml.Snapshot) { s.Transcript = s.Transcript[:1] },
		"no transcript":     func(s *ml.Snapshot) { s.Transcript = nil },
		"streaming":         func(s *ml.Snapshot) { s.StreamingMessage = "" },
		"live":              func(s *ml.Snapshot) { s.Live = false },
		"truncated":         func(s *ml.Snapshot) { s.Truncated = false },
	} {
		s := full()
		change(&s)
		require.False(t, equalForms(full(), s), name)
		require.NotEmpty(t, cmp.Diff(full(), s, cmpopts.EquateEmpty()), name)
		require.Error(t, CompareForms(s, full(), "snapshot"), name)
	}
	a, b := ml.Snapshot{}, ml.Snapshot{Transcript: []string{}}
	require.True(t, equalForms(a, b))
	require.Empty(t, cmp.Diff(a, b, cmpopts.EquateEmpty()))
	require.NoError(t, CompareForms(a, b, "capture"))
}
