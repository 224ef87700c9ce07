package invariants

import (
	"errors"
	"sync"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/stretchr/testify/require"
)

type stream struct {
	m *pi.AssistantMessage
	i int
}

// Next streams "hello" as start, text_start, 5 deltas, text_end, done.
func (s *stream) Next() (pi.Event, error) {
	s.i++
	switch {
	case s.i == 1:
		return pi.Event{Type: pi.EventStart, Partial: s.m}, nil
	case s.i == 2:
		s.m.Content = []pi.Content{pi.TextContent{}}
		return pi.Event{Type: pi.EventTextStart, ContentIndex: pi.Index(0), Partial: s.m}, nil
	case s.i <= 7:
		d := string("hello"[s.i-3])
		s.m.Content[0] = pi.TextContent{Text: s.m.Content[0].(pi.TextContent).Text + d}
		return pi.Event{Type: pi.EventTextDelta, ContentIndex: pi.Index(0), Delta: d, Partial: s.m}, nil
	case s.i == 8:
		return pi.Event{Type: pi.EventTextEnd, ContentIndex: pi.Index(0), Content: "hello", Partial: s.m}, nil
	}
	m := s.m.Clone()
	m.StopReason = pi.StopStop
	return pi.Event{Type: pi.EventDone, Reason: pi.StopStop, Message: m}, nil
}

type provider struct{}

func (provider) Stream(lane.Request) lane.Stream {
	return &stream{m: &pi.AssistantMessage{Content: []pi.Content{}, API: "a", Provider: "openai", Model: "m", StopReason: pi.StopPending}}
}

type failing struct {
	store.Storage
	mu   sync.Mutex
	n    int
	fail int
}

func (f *failing) Commit(ws []store.Write) (store.CommitResult, error) {
	f.mu.Lock()
	f.n++
	bad := f.fail > 0 && f.n >= f.fail
	f.mu.Unlock()
	if bad {
		return store.CommitResult{}, errors.New("crash")
	}
	return f.Storage.Commit(ws)
}

// A real lane run, crashed at every commit and recovered, satisfies all
// twelve invariants after every phase.
func TestRealRunsSatisfyInvariants(t *testing.T) {
	for keep := 1; keep <= 10; keep++ {
		mem := memory.New(envtest.NewClock(envtest.Epoch))
		// the lane's acquisition and the run's start commit before the crash
		st := &failing{Storage: mem, fail: keep + 2}
		var mu sync.Mutex
		var log []LogItem
		keys := map[string]bool{}
		cfg := lane.Config{Name: "main", Storage: st, Clock: envtest.NewClock(envtest.Epoch), IDs: &envtest.IDs{}, Exec: env.Goroutines{}, Provider: provider{},
			Listener: func(e lane.Event) env.Future {
				mu.Lock()
				log = append(log, LogItem{Event: &e})
				mu.Unlock()
				return nil
			},
			OnFrame: func(r lane.FrameRecord) {
				mu.Lock()
				log = append(log, LogItem{Frame: &r})
				keys[lane.FramesAddr(r.OperationID, r.ResponseEntryID).Key] = true
				mu.Unlock()
			}}
		l, err := lane.Open(cfg)
		require.NoError(t, err)
		op, err := l.StartRun(lane.RunOptions{UserText: "hi", Configuration: lane.Configuration{Model: lane.ModelRef{Provider: "openai", ModelID: "m"}}, RetryPolicy: lane.RetryPolicy{MaxAttempts: 2}})
		require.NoError(t, err)
		_, _ = l.Drive(lane.StepOptions{})
		check := func(restored *lane.Operation, snap *lane.Snapshot) {
			mu.Lock()
			defer mu.Unlock()
			var ks []string
			for k := range keys {
				ks = append(ks, k)
			}
			v, err := ReadView(mem, []string{op}, ks)
			require.NoError(t, err)
			v.Log, v.Restored, v.Snapshot = log, restored, snap
			require.NoError(t, Check(v), "keep=%d", keep)
		}
		check(nil, nil)
		st.fail = 0
		cfg.IDs = envtest.IDsAfter(100)
		// the harness options (retry policy) a run boundary of the reopened
		// process reads beside the stored pi.lane.config
		cfg.Generation = &lane.GenerationConfig{Configuration: lane.Configuration{Model: lane.ModelRef{Provider: "openai", ModelID: "m"}},
			RetryPolicy: lane.RetryPolicy{MaxAttempts: 2}}
		l2, err := lane.Open(cfg)
		require.NoError(t, err)
		snap, err := l2.Snapshot()
		require.NoError(t, err)
		check(l2.Current(), snap)
		_, err = l2.Drive(lane.StepOptions{WaitForRetry: true})
		require.NoError(t, err)
		snap, err = l2.Snapshot()
		require.NoError(t, err)
		check(nil, snap)
	}
}
