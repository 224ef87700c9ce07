package provider

import (
	"fmt"
	"io"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/provider"
	"github.com/frameproof/frameproof/props/peer"
)

// chunkReader hands out body in the pieces the chunk offsets define, as a
// network read would.
type chunkReader struct {
	body   []byte
	chunks []int
	pos    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.pos >= len(r.body) {
		return 0, io.EOF
	}
	end := len(r.body)
	for _, c := range r.chunks {
		if c > r.pos {
			end = c
			break
		}
	}
	n := copy(p, r.body[r.pos:end])
	r.pos += n
	return n, nil
}

// Meta is the request identity every subject is given.
var Meta = impl.Meta{Provider: "fuzz", Model: "fuzz-model"}

// RunGoRendered runs the Go reference adapter (with an optional seeded bug)
// over rendered bytes, in process, and returns its events.
func RunGoRendered(wire impl.Wire, rd Rendered, bug impl.Bug) []impl.Event {
	var events []impl.Event
	emit := func(e impl.Event) { events = append(events, e) }
	if rd.Status != 200 {
		impl.HTTPFailure(wire, Meta, rd.Status, rd.Body, emit)
		return events
	}
	impl.Stream(wire, &chunkReader{body: rd.Body, chunks: rd.Chunks}, Meta, impl.Options{}, impl.WithBug(bug, emit))
	return events
}

// RunGoRenderedPi is RunGoRendered emitting the adapter's pi events.
func RunGoRenderedPi(wire impl.Wire, rd Rendered, bug impl.Bug) []*pi.Event {
	var events []*pi.Event
	emit := func(e *pi.Event) { events = append(events, e) }
	if rd.Status != 200 {
		impl.HTTPFailurePi(wire, Meta, rd.Status, rd.Body, emit)
		return events
	}
	impl.Stream(wire, &chunkReader{body: rd.Body, chunks: rd.Chunks}, Meta, impl.Options{}, impl.WithBug(bug, func(e impl.Event) { emit(e.ToPi()) }))
	return events
}

// Result is one checked stream.
type Result struct {
	Scenario Scenario
	Rendered Rendered
	Events   []impl.Event
	// PiEvents are the same events as impl/pi Events (as the subject
	// reported them, for external adapters), which the codec checks encode.
	PiEvents   []*pi.Event
	Violations []Violation
}

// Failed reports whether any rule was broken.
func (r Result) Failed() bool { return len(r.Violations) > 0 }

// Subject runs an adapter over a rendered scenario.
type Subject interface {
	Name() string
	Run(wire impl.Wire, rd Rendered) ([]impl.Event, error)
}

// PiSubject is a Subject that reports impl/pi events directly (so nothing is
// lost converting them).
type PiSubject interface {
	Subject
	RunPi(wire impl.Wire, rd Rendered) ([]*pi.Event, error)
}

// GoSubject is the in-process Go reference adapter, optionally with a seeded bug.
type GoSubject struct{ Bug impl.Bug }

// Name identifies the subject in reports.
func (g GoSubject) Name() string {
	if g.Bug == impl.BugNone {
		return "go"
	}
	return "go+" + g.Bug.String()
}

// Run implements Subject.
func (g GoSubject) Run(wire impl.Wire, rd Rendered) ([]impl.Event, error) {
	return RunGoRendered(wire, rd, g.Bug), nil
}

// RunPi implements PiSubject.
func (g GoSubject) RunPi(wire impl.Wire, rd Rendered) ([]*pi.Event, error) {
	return RunGoRenderedPi(wire, rd, g.Bug), nil
}

// RunOptions choose the checks beyond the event contract.
type RunOptions struct {
	// NoCodec skips the codec-round-trip verdict (on by default).
	NoCodec bool
	// Peer, when set, adds codec-peer-identical against pi-ai's encoder.
	Peer *peer.Peer
	// NewEncoder is the Go encoder under test (default NewGoEncoder).
	NewEncoder func() FrameEncoder
}

// RunScenario renders sc, runs subject over it and checks the events with
// the default options (contract and codec-round-trip).
func RunScenario(subject Subject, sc Scenario) (Result, error) {
	return RunScenarioWith(subject, sc, RunOptions{})
}

// RunScenarioWith is RunScenario with options.
func RunScenarioWith(subject Subject, sc Scenario, opts RunOptions) (Result, error) {
	rd, err := Render(sc)
	if err != nil {
		return Result{}, err
	}
	return RunRenderedWith(subject, sc, rd, opts)
}

// RunRendered runs subject over already rendered bytes (a corpus transcript)
// with the default options.
func RunRendered(subject Subject, sc Scenario, rd Rendered) (Result, error) {
	return RunRenderedWith(subject, sc, rd, RunOptions{})
}

// RunRenderedWith runs subject over rendered bytes and checks the contract,
// then the codec over the subject's actual events.
func RunRenderedWith(subject Subject, sc Scenario, rd Rendered, opts RunOptions) (Result, error) {
	wire := impl.Wire(sc.Wire)
	res := Result{Scenario: sc, Rendered: rd}
	var err error
	if ps, ok := subject.(PiSubject); ok {
		if res.PiEvents, err = ps.RunPi(wire, rd); err != nil {
			return Result{}, err
		}
		for i, e := range res.PiEvents {
			ev, err := impl.EventFromPi(e)
			if err != nil {
				return Result{}, fmt.Errorf("provider: %s event %d: %w", subject.Name(), i, err)
			}
			res.Events = append(res.Events, ev)
		}
	} else {
		if res.Events, err = subject.Run(wire, rd); err != nil {
			return Result{}, err
		}
		for _, e := range res.Events {
			res.PiEvents = append(res.PiEvents, e.ToPi())
		}
	}
	res.Violations = Check(res.Events, Expect(sc))
	newEnc := opts.NewEncoder
	if newEnc == nil {
		newEnc = NewGoEncoder
	}
	if !opts.NoCodec {
		res.Violations = append(res.Violations, CheckCodecRoundTrip(res.PiEvents, validPrefix(res.Violations, len(res.PiEvents)), newEnc)...)
	}
	if opts.Peer != nil {
		vs, err := CheckCodecPeer(opts.Peer, res.PiEvents, newEnc)
		if err != nil {
			return Result{}, err
		}
		res.Violations = append(res.Violations, vs...)
	}
	return res, nil
}

// validPrefix is how many leading events precede the first event-level
// contract violation (whole-stream and outcome verdicts — terminal missing,
// final message against the truth — do not make an event invalid input for
// the codec).
func validPrefix(vs []Violation, n int) int {
	for _, v := range vs {
		switch v.Rule {
		case RuleTerminalExpected, RuleFinalEqualsTruth, RuleErrorContentPrefix, RuleTerminalPresent:
			continue
		}
		if v.Event >= 0 && v.Event < n {
			n = v.Event
		}
	}
	return n
}
