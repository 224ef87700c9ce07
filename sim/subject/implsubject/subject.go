// Package implsubject runs impl/lane in process as a simulator subject
// (sim/subject.Subject): impl/lane's lane over impl/store's JSONL or memory
// storage behind a commit gate that parks every admitted commit (pi's
// GatingStorage), a scripted provider whose events are released one at a
// time, and a virtual clock and id source — the counterparts of what
// corpus/peers/pi-agent-core/subject-driver.mjs does for pi's harness.
//
// Every actor of the lane runs in one sim/world world whose scheduler
// takes the first runnable actor (choice.Fixed(0): the lane's own
// interleaving is not what the boundary explores; the simulator's releases
// are). The world runs on one goroutine for the subject's life; its main
// actor, the controller, takes one request at a time from the caller and
// answers once nothing but it can run (quiescence: it sleeps on the
// world's clock, which, with TimersOnlyWhenIdle, moves only when every
// other actor waits). The caller and the world hand the baton over
// channels, so exactly one side runs at a time and the same requests give
// the same observations, byte for byte.
package implsubject

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/subject"
	"github.com/frameproof/frameproof/sim/trace"
	"github.com/frameproof/frameproof/sim/world"
)

// Plant names an injected defect of the adapter (tests prove the
// campaign catches it); "" is none.
type Plant string

// PlantDropWrite reports the first landed transaction of three or more
// writes without its last write (pisubject's drop-write, in process).
const PlantDropWrite Plant = "drop-write"

// Options configure a subject.
type Options struct {
	// Plant injects a defect into what the adapter reports.
	Plant Plant
	// Bugs are impl/lane bug switches (lane.BugNames) every lane process
	// runs with; only a -tags frameproofbugs build has them.
	Bugs []string
	// StoredDelayCap is the retry-delay cap of the release the run
	// models (subject.Options.StoredDelayCap): nil is pi 0.85.1, whose
	// policies store none and whose retry delay has no cap.
	StoredDelayCap *float64
	// ErrorPatterns is the pi-ai release whose retry and overflow
	// patterns the lane classifies with (subject.Options.ErrorPatterns;
	// "": 1.0.3).
	ErrorPatterns pi.AIRelease
}

// Subject is impl/lane as a subject.
type Subject struct {
	opts Options

	// the world and the hand-over with the caller
	w       *world.World
	cmds    chan func() error
	replies chan reply
	done    chan struct{}
	runErr  error

	// the current process (everything below is per process, as a driver
	// process's state is)
	proc      *world.Process
	ln        *lane.Lane
	storage   store.Storage
	closing   bool
	lost      bool // DropParked: every commit refused
	clock     *clock
	ids       *ids
	model     subject.Model
	gen       *lane.GenerationConfig
	scripts   [][]*pi.Event
	streams   []*stream
	parked    []*parked
	commitSeq int
	calls     int
	obs       subject.Obs
	planted   bool
}

type reply struct {
	obs subject.Obs
	err error
}

var _ subject.Subject = (*Subject)(nil)

// New returns a subject; its world starts at the first Open.
func New(opts Options) *Subject { return &Subject{opts: opts} }

// workers are the actor goroutines every subject's world shares.
var workers = world.NewWorkers(32)

// stepBudget bounds the scheduler steps of a subject's life: a lane that
// never stops scheduling is a liveness failure, not a hang.
const stepBudget = 20_000_000

func (s *Subject) start() {
	s.w = world.New(choice.Fixed(0), world.Options{TimersOnlyWhenIdle: true, IdleOK: true, MaxSteps: stepBudget,
		DeepActors: true, Workers: workers, Trace: trace.NewHashOnly()})
	s.cmds, s.replies, s.done = make(chan func() error), make(chan reply), make(chan struct{})
	go func() {
		s.runErr = s.w.Run(s.controller)
		close(s.done)
	}()
}

// controller is the world's main actor: it runs each request inside the
// world, waits for quiescence and answers with the observations.
func (s *Subject) controller() {
	for do := range s.cmds {
		err := do()
		s.quiesce()
		s.replies <- reply{obs: s.report(), err: err}
	}
}

// quiesce returns once every other actor waits: the world's clock (which
// nothing else reads) moves only then.
func (s *Subject) quiesce() { s.w.Sleep(time.Millisecond) }

// do runs one request in the world and returns what it observed.
func (s *Subject) do(fn func() error) (subject.Obs, error) {
	if s.w == nil {
		s.start()
	}
	select {
	case s.cmds <- fn:
	case <-s.done:
		return subject.Obs{}, s.ended()
	}
	select {
	case r := <-s.replies:
		return r.obs, r.err
	case <-s.done:
		return subject.Obs{}, s.ended()
	}
}

func (s *Subject) ended() error {
	if s.runErr != nil {
		return fmt.Errorf("implsubject: the world ended: %w", s.runErr)
	}
	return errors.New("implsubject: the world ended")
}

// report takes the observations since the last one, with the current
// parked commits, streams and timers.
func (s *Subject) report() subject.Obs {
	out := s.obs
	s.obs = subject.Obs{}
	out.Parked = []subject.Commit{}
	for _, p := range s.parked {
		out.Parked = append(out.Parked, subject.Commit{N: p.n, Writes: writes(p.writes)})
	}
	out.Streams = s.openStreams()
	out.Timers, out.Now = []float64{}, 0
	if s.clock != nil {
		out.Timers, out.Now = s.clock.due(), s.clock.nowMs
	}
	return out
}

// encoding reports whether the lane still encodes what it reads (neither
// closed nor faulted).
func (s *Subject) encoding() bool { return s.ln != nil && !s.closing && s.ln.Fault() == nil }

// Open starts a process: storage, the lane, and the lane call.
func (s *Subject) Open(o subject.OpenOptions) (subject.Obs, error) {
	return s.do(func() error { return s.open(o) })
}

func (s *Subject) open(o subject.OpenOptions) error {
	if s.proc != nil && s.proc.Alive() {
		s.crash()
	}
	s.proc = s.w.NewProcess("lane")
	s.model = o.Model
	s.clock = &clock{s: s, nowMs: o.Now}
	s.ids = &ids{c: s.clock, process: o.Process}
	s.scripts, s.streams, s.parked, s.commitSeq, s.calls, s.closing, s.lost = nil, nil, nil, 0, 0, false, false
	st, err := s.openStorage(o)
	if err != nil {
		return err
	}
	s.storage = st
	s.gen = generation(o, s.opts.StoredDelayCap)
	cfg, err := s.laneConfig(o)
	if err != nil {
		return err
	}
	if s.ln, err = lane.Open(cfg); err != nil {
		return fmt.Errorf("implsubject: open the lane: %w", err)
	}
	s.startCall(subject.CallLane, func() (json.RawMessage, error) {
		return nil, s.ln.Acquire()
	})
	return nil
}

func (s *Subject) laneConfig(o subject.OpenOptions) (lane.Config, error) {
	cfg := lane.Config{Name: o.Lane, Storage: &gatedStore{Storage: s.storage, s: s}, Clock: s.clock, IDs: s.ids, Exec: s.proc,
		Provider: provider{s}, Listener: s.listen, OnFrame: s.onFrame,
		Limits:     lane.ModelLimits{MaxTokens: o.Model.MaxTokens, ContextWindow: o.Model.ContextWindow},
		Generation: s.gen, ErrorPatterns: s.opts.ErrorPatterns}
	if s.opts.StoredDelayCap == nil {
		inf := math.Inf(1) // pi 0.85.1's runtime/drive/retry.js retryDelay: no cap
		cfg.DefaultMaxAgentDelayMs = &inf
	}
	return withLaneBugs(cfg, s.opts.Bugs)
}

// openStorage creates or reopens the session: JSONL (pi's format v4, the
// file the run names) or memory (lost with the process).
func (s *Subject) openStorage(o subject.OpenOptions) (store.Storage, error) {
	e := env.Env{Clock: s.clock, FS: env.OSFS{}, IDs: s.ids, Executor: s.proc}
	opts := jsonl.Options{Sync: jsonl.SyncNever} // pi's JsonlStorage does not fsync
	switch {
	case o.Session == subject.SessionMemory:
		return memory.New(s.clock), nil
	case o.Session != subject.SessionJSONL:
		return nil, fmt.Errorf("implsubject: unknown session kind %q", o.Session)
	case o.Reopen:
		return jsonl.Open(e, o.Path, opts)
	}
	return jsonl.Create(e, o.Path, jsonl.Header{ID: "frameproof-session", StorageVersion: 1, Cwd: "/"}, opts)
}

// generation is the process's harness options (createAgentHarness): the
// scripted model, pi's default thinking level and no tools, empty stream
// options and the retry option normalized (runtime/drive/boundary.ts
// normalizedRetryPolicy).
func generation(o subject.OpenOptions, delayCap *float64) *lane.GenerationConfig {
	retry := subject.DefaultRetryPolicy
	if o.Retry != nil {
		retry = *o.Retry
	}
	policy := lane.RetryPolicy{MaxAttempts: 1, BaseDelayMs: retry.BaseDelayMs, MaxAgentDelayMs: delayCap}
	if retry.Enabled {
		policy.MaxAttempts = retry.MaxRetries + 1
	}
	streamOptions, _ := pi.ParseJSON(`{}`)
	return &lane.GenerationConfig{
		Configuration: lane.Configuration{Model: lane.ModelRef{Provider: subject.Provider, ModelID: o.Model.ID}, ThinkingLevel: "off", ActiveToolNames: []string{}},
		StreamOptions: streamOptions, RetryPolicy: policy}
}

// listen is the lane's event bus subscriber: every event, as pi delivers it.
func (s *Subject) listen(ev lane.Event) env.Future {
	s.obs.Events = append(s.obs.Events, eventJSON(ev))
	return nil
}

// crash ends the current process at once: its actors never run again, its
// parked commits never land, its timers never fire.
func (s *Subject) crash() {
	s.proc.Crash()
	if s.storage != nil {
		_ = s.storage.Close() // the old process's handle; nothing of it is pending
	}
	s.ln, s.storage, s.parked = nil, nil, nil
	if s.clock != nil {
		s.clock.timers = nil
	}
}

// Kill ends the process at once; Open with Reopen starts the next one.
func (s *Subject) Kill() error {
	if s.w == nil || s.proc == nil {
		return nil
	}
	_, err := s.do(func() error {
		if s.proc.Alive() {
			s.crash()
		}
		return nil
	})
	return err
}

// Close ends the subject: the world stops and leaves no goroutine behind.
func (s *Subject) Close() error {
	if s.w == nil {
		return nil
	}
	if s.cmds != nil {
		close(s.cmds)
		s.cmds = nil
	}
	<-s.done
	return s.runErr
}
