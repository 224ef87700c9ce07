package provider

import (
	"io"

	impl "github.com/frameproof/frameproof/impl/provider"
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
	impl.Stream(wire, &chunkReader{body: rd.Body, chunks: rd.Chunks}, Meta, impl.Options{Bug: bug}, emit)
	return events
}

// Result is one checked stream.
type Result struct {
	Scenario   Scenario
	Rendered   Rendered
	Events     []impl.Event
	Violations []Violation
}

// Failed reports whether any rule was broken.
func (r Result) Failed() bool { return len(r.Violations) > 0 }

// Subject runs an adapter over a rendered scenario.
type Subject interface {
	Name() string
	Run(wire impl.Wire, rd Rendered) ([]impl.Event, error)
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

// RunScenario renders sc, runs subject over it and checks the events.
func RunScenario(subject Subject, sc Scenario) (Result, error) {
	rd, err := Render(sc)
	if err != nil {
		return Result{}, err
	}
	return RunRendered(subject, sc, rd)
}

// RunRendered runs subject over already rendered bytes (a corpus transcript).
func RunRendered(subject Subject, sc Scenario, rd Rendered) (Result, error) {
	events, err := subject.Run(impl.Wire(sc.Wire), rd)
	if err != nil {
		return Result{}, err
	}
	return Result{Scenario: sc, Rendered: rd, Events: events, Violations: Check(events, Expect(sc))}, nil
}
