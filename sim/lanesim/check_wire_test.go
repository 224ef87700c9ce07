package lanesim

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/sim/campaign"
)

// transcriptText is a final transcript as the wire check reads it: its
// messages, one a line.
func transcriptText(msgs ...pi.Appender) string {
	lines := make([]string, len(msgs))
	for i, m := range msgs {
		lines[i] = string(m.AppendJSON(nil))
	}
	return strings.Join(lines, "\n")
}

// toolTurn is a question, an assistant turn calling a tool (stopped as
// stop), and the tool's result (text).
func toolTurn(question, id string, stop pi.StopReason, text string) []pi.Appender {
	call := &pi.AssistantMessage{Content: []pi.Content{pi.ToolCall{ID: id, Name: "read", Arguments: pi.EmptyObject()}},
		API: simAPI, Provider: simProvider, Model: simModel, StopReason: stop, Timestamp: 1}
	return []pi.Appender{&pi.UserMessage{Text: question, Timestamp: 1}, call,
		&pi.ToolResultMessage{ToolCallID: id, ToolName: "read", Content: []pi.Content{pi.TextContent{Text: text}}, Timestamp: 2}}
}

// wireOutcome is what a wire check left on its runner.
type wireOutcome struct {
	failed bool
	kind   campaign.FailureKind
	msg    string
	checks int
}

func wireCheckOf(data string, cached bool) wireOutcome {
	r := bareRunner()
	if c := (&wireChecker{r: r}); cached {
		c.transcript(data)
	} else {
		c.check(data)
	}
	return wireOutcome{r.failed, r.kind, r.msg, r.checks}
}

// withVerdicts runs f with an empty verdict memo of its own.
func withVerdicts(f func(v *verdicts)) {
	saved := wireVerdicts
	defer func() { wireVerdicts = saved }()
	wireVerdicts = &verdicts{maxBytes: maxVerdictBytes, maxText: maxVerdictText}
	f(wireVerdicts)
}

// A transcript the wire check passed is taken from the memo with as many
// checks; a text that differs by one byte, or by a line more, is checked
// (and fails) again; a failing text is never remembered.
func TestWireVerdictsAreByText(t *testing.T) {
	withVerdicts(func(v *verdicts) {
		good := transcriptText(toolTurn("question", "call_1_a", pi.StopToolUse, "contents of a.txt")...)
		want := wireCheckOf(good, false)
		require.False(t, want.failed, want.msg)
		require.Greater(t, want.checks, 2)
		require.Equal(t, want, wireCheckOf(good, true))
		require.Contains(t, v.n, good)
		require.Equal(t, want, wireCheckOf(good, true)) // from the memo

		sameLength := strings.Replace(good, `"role":"user"`, `"role":"usex"`, 1)
		require.Len(t, sameLength, len(good))
		longer := good + "\n" + `{"role":"nobody"}`
		for _, bad := range []string{sameLength, longer} {
			got := wireCheckOf(bad, true)
			require.True(t, got.failed, bad)
			require.Equal(t, wireCheckOf(bad, false), got)
			require.NotContains(t, v.n, bad)
		}
	})
}

// A run with planted bugs checks every transcript itself: it neither takes
// a verdict from the memo (a bug may change what the projections make of
// a text the unbroken code passed) nor leaves one there.
func TestWireVerdictsAreNotUsedWithBugs(t *testing.T) {
	withVerdicts(func(v *verdicts) {
		good := transcriptText(toolTurn("question", "call_1_a", pi.StopToolUse, "contents of a.txt")...)
		r := bareRunner()
		r.opts.Bugs = []string{"any"}
		(&wireChecker{r: r}).transcript(good)
		require.False(t, r.failed, r.msg)
		require.NotContains(t, v.n, good, "a run with bugs left its verdict")

		v.put(good, 1000) // a verdict no check of this text gives
		r = bareRunner()
		r.opts.Bugs = []string{"any"}
		(&wireChecker{r: r}).transcript(good)
		require.Equal(t, wireCheckOf(good, false).checks, r.checks, "a run with bugs took the memo's verdict")
	})
}

// The memoized wire check and the check itself agree on every transcript of
// a random sequence (passing ones, texts that fail to decode, results lost
// or not bound), the same text drawn again or not.
func TestWireVerdictsMatchTheCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		withVerdicts(func(v *verdicts) {
			texts := rapid.SliceOfN(rapid.StringMatching(`[a-c ]{0,6}`), 1, 3).Draw(t, "texts")
			for i, n := 0, rapid.IntRange(1, 12).Draw(t, "n"); i < n; i++ {
				text := rapid.SampledFrom(texts).Draw(t, "text")
				id := rapid.SampledFrom([]string{"call_1_a", "call_2_b"}).Draw(t, "id")
				stop := rapid.SampledFrom([]pi.StopReason{pi.StopToolUse, pi.StopError}).Draw(t, "stop")
				msgs := toolTurn("q "+text, id, stop, text)
				switch rapid.IntRange(0, 3).Draw(t, "shape") {
				case 1:
					msgs = msgs[:2] // the result lost
				case 2:
					msgs = append(msgs, &pi.UserMessage{Text: text}) // a question after
				}
				data := transcriptText(msgs...)
				if rapid.Bool().Draw(t, "undecodable") {
					data = strings.Replace(data, `"role":"toolResult"`, `"role":"toolResulx"`, 1)
				}
				want := wireCheckOf(data, false)
				if got := wireCheckOf(data, true); got != want {
					t.Fatalf("transcript %q: memoized check %+v, the check %+v", data, got, want)
				}
				if _, kept := v.n[data]; kept == want.failed {
					t.Fatalf("transcript %q: kept %v, failed %v", data, kept, want.failed)
				}
			}
		})
	})
}

// The memo keeps the latest texts within its byte budget, and no text
// longer than its text bound.
func TestWireVerdictsStayBounded(t *testing.T) {
	v := &verdicts{maxBytes: 10, maxText: 4}
	v.put("aaaa", 1)
	v.put("bbbb", 2)
	v.put("toolong", 3)
	v.put("cccc", 4) // aaaa goes
	v.put("bbbb", 5) // kept already
	_, a := v.get("aaaa")
	_, long := v.get("toolong")
	b, _ := v.get("bbbb")
	c, _ := v.get("cccc")
	require.False(t, a)
	require.False(t, long)
	require.Equal(t, []int{2, 4}, []int{b, c})
	require.Equal(t, 8, v.bytes)
	require.Equal(t, []string{"bbbb", "cccc"}, v.order)
}

// The wire check's transcript text is its messages' pi.Marshal, joined by
// newlines, for random entries (with a message or none, messages of every
// JSON kind, strings that need escaping); an entry that is no object fails
// the run.
func TestWireMessagesAreTheMarshaledLines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var es []lane.TranscriptEntry
		var lines []string
		broken := false
		for i, n := 0, rapid.IntRange(0, 6).Draw(t, "entries"); i < n; i++ {
			msg := rapid.SampledFrom([]string{``, `{"role":"user","content":"q"}`, `"a\u00e9\n\"b"`, `[1,2.5,-0,1e300]`,
				`{"role":"assistant","content":[{"type":"text","text":"<\u2028>"}],"b":true,"n":null}`, `{}`}).Draw(t, "message")
			raw := `{"id":"e","type":"message"}`
			if msg != "" {
				raw = `{"id":"e","message":` + msg + `}`
			}
			if rapid.IntRange(0, 9).Draw(t, "notObject") == 0 {
				raw, broken = `["e"]`, true
			}
			es = append(es, lane.TranscriptEntry{ID: "e", Raw: []byte(raw)})
			if v, err := pi.ParseJSON(raw); err == nil && v.Kind() == pi.Object {
				if m, ok := v.ObjectValue().Get("message"); ok {
					b, err := pi.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					lines = append(lines, string(b))
				}
			}
		}
		r := bareRunner()
		text, ok := (&wireChecker{r: r}).messages(es)
		if ok == broken || r.failed != broken {
			t.Fatalf("ok %v, failed %v, an entry no object %v", ok, r.failed, broken)
		}
		if want := strings.Join(lines, "\n"); !broken && text != want {
			t.Fatalf("text %q, want %q", text, want)
		}
	})
}
