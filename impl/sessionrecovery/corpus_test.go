package sessionrecovery

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

const corpusDir = "../../corpus/jsonl/recover"

// goldenNow is the instant the golden outputs were computed at.
var goldenNow = time.UnixMilli(1_767_225_700_000)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time    { return c.t }
func (fixedClock) Sleep(time.Duration) {}

type countingIDs struct{ n int }

func (c *countingIDs) NewID() string {
	c.n++
	return fmt.Sprintf("019a0000-0000-7000-8000-%012x", c.n)
}

func testEnv() env.Env {
	return env.Env{Clock: fixedClock{goldenNow}, FS: env.OSFS{}, IDs: &countingIDs{}, Executor: env.Goroutines{}}
}

// scripted streams a fixed event list built on one shared partial, the way
// pi-ai providers mutate their live accumulator.
type scripted struct{ events []func() pi.Event }

func (s *scripted) Stream(lane.Request) lane.Stream { return &stream{events: s.events} }

type stream struct {
	events []func() pi.Event
	i      int
}

func (s *stream) Next() (pi.Event, error) {
	ev := s.events[s.i]()
	s.i++
	return ev, nil
}

func textReply(words ...string) *scripted {
	m := &pi.AssistantMessage{Content: []pi.Content{}, API: "anthropic-messages", Provider: "anthropic", Model: "claude-test", StopReason: pi.StopPending, Timestamp: 1_767_225_600_500}
	evs := []func() pi.Event{
		func() pi.Event { return pi.Event{Type: pi.EventStart, Partial: m} },
		func() pi.Event {
			m.Content = append(m.Content, pi.TextContent{})
			return pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: m}
		},
	}
	for _, w := range words {
		evs = append(evs, func() pi.Event {
			b := m.Content[0].(pi.TextContent)
			b.Text += w
			m.Content[0] = b
			return pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: w, Partial: m}
		})
	}
	evs = append(evs,
		func() pi.Event {
			return pi.Event{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: m.Content[0].(pi.TextContent).Text, Partial: m}
		},
		func() pi.Event {
			done := m.Clone()
			done.StopReason = pi.StopStop
			done.Usage = pi.Usage{Input: 12, Output: 7, TotalTokens: 19}
			return pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: done}
		})
	return &scripted{events: evs}
}

// completeSession runs one lane turn to the end on a fresh JSONL file and
// returns its bytes: the source every crashed case is cut from.
func completeSession(t *testing.T) []byte {
	p := filepath.Join(t.TempDir(), "session.jsonl")
	e := testEnv()
	e.Clock = &tickingClock{t: time.UnixMilli(1_767_225_600_000)}
	st, err := jsonl.Create(e, p, jsonl.Header{ID: "019a0000-0000-7000-8000-0000000000aa", CreatedAt: 1_767_225_600_000, Cwd: "/work"}, jsonl.Options{Sync: jsonl.SyncNever})
	require.NoError(t, err)
	l, err := lane.Open(lane.Config{Name: "main", Storage: st, Clock: e.Clock, IDs: e.IDs, Exec: e.Executor,
		Provider: textReply("The store ", "keeps every ", "frame until ", "settlement.")})
	require.NoError(t, err)
	_, err = l.StartRun(lane.RunOptions{UserText: "What does the store keep?",
		Configuration: lane.Configuration{Model: lane.ModelRef{Provider: "anthropic", ModelID: "claude-test"}, ThinkingLevel: "off"},
		RetryPolicy:   lane.RetryPolicy{MaxAttempts: 3, BaseDelayMs: 1000}})
	require.NoError(t, err)
	_, err = l.Drive(lane.StepOptions{})
	require.NoError(t, err)
	require.NoError(t, l.Close())
	require.NoError(t, st.Close())
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

type tickingClock struct{ t time.Time }

func (c *tickingClock) Now() time.Time {
	c.t = c.t.Add(time.Millisecond)
	return c.t
}
func (c *tickingClock) Sleep(d time.Duration) { c.t = c.t.Add(d) }

// crashedCases cuts the complete session into crashed files.
func crashedCases(t *testing.T, full []byte) map[string][]byte {
	ls := strings.SplitAfter(string(full), "\n")
	frameLine := func(k int) int { // index of the k-th frame-only line
		n := 0
		for i, l := range ls {
			if strings.HasPrefix(l, `{"kind":"list","op":"append"`) {
				n++
				if n == k {
					return i
				}
			}
		}
		t.Fatalf("no frame line %d", k)
		return 0
	}
	settle := -1 // the settlement line: it deletes the frame list
	for i, l := range ls {
		if strings.Contains(l, `{"kind":"list","op":"delete"`) {
			settle = i
		}
	}
	require.GreaterOrEqual(t, settle, 0)
	leftover := strings.Join(ls[:settle], "") + stripListDelete(t, ls[settle]) + strings.Join(ls[settle+1:], "")
	return map[string][]byte{
		"crashed-mid-text":      []byte(strings.Join(ls[:frameLine(3)+1], "")),
		"crashed-torn-frame":    []byte(strings.Join(ls[:frameLine(4)], "") + ls[frameLine(4)][:40]),
		"settled-leftover-list": []byte(leftover),
	}
}

// stripListDelete removes the frame-list delete record from a settlement
// transaction: a writer that forgot it leaves the list behind.
func stripListDelete(t *testing.T, line string) string {
	i := strings.Index(line, `,{"kind":"list","op":"delete"`)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(line[i+1:], "}") + i + 2
	return line[:i] + line[j:]
}

// TestRegenerateCorpus rewrites corpus/jsonl/recover (run with
// FRAMEPROOF_REGEN_RECOVER=1 after a deliberate change); it is skipped
// otherwise, and TestGoldenRecover checks the files.
func TestRegenerateCorpus(t *testing.T) {
	if os.Getenv("FRAMEPROOF_REGEN_RECOVER") == "" {
		t.Skip("set FRAMEPROOF_REGEN_RECOVER=1 to regenerate corpus/jsonl/recover")
	}
	require.NoError(t, os.MkdirAll(corpusDir, 0o755))
	for name, content := range crashedCases(t, completeSession(t)) {
		p := filepath.Join(corpusDir, name+".jsonl")
		require.NoError(t, os.WriteFile(p, content, 0o644))
		var out bytes.Buffer
		r, err := Inspect(testEnv(), p, Options{})
		require.NoError(t, err)
		require.NoError(t, Render(&out, name+".jsonl", r, false))
		require.NoError(t, os.WriteFile(filepath.Join(corpusDir, name+".golden.txt"), out.Bytes(), 0o644))
	}
}
