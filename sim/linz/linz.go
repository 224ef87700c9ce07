// Package linz records the client-visible operations of a simulation run as
// a porcupine history and checks it for linearizability.
//
// Timestamps are logical, taken from the scheduler: time = step<<16 + k,
// where step is the world's step counter (World.Step) and k counts the
// events recorded within that step. Only one actor runs per step, so events
// inside a step really happen in the order recorded; distinct timestamps
// keep that order without wall time.
//
// An operation whose outcome is unknown — cut by a crash, or still pending
// when the run ended — is indefinite: its Return is math.MaxInt64 (it may
// take effect at any point after its call, or never observably) and its
// Output is an Indefinite value. Models must accept any output for an
// Indefinite read and may apply an indefinite write (porcupine can then
// linearize it after everything if nobody observed it). This is etcd's and
// S2's treatment of failed requests (porcupine issue #8).
//
// Faults (crashes, storage errors, clock jumps) are recorded as annotations
// and drawn on the porcupine HTML visualization in their own "faults" lane.
package linz

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// Indefinite is the Output of an operation whose outcome is unknown.
type Indefinite struct {
	Cause string // e.g. "crash of lane@1", "pending at end"
}

func (i Indefinite) String() string { return "indefinite (" + i.Cause + ")" }

// IsIndefinite reports whether output is an Indefinite marker.
func IsIndefinite(output any) bool {
	_, ok := output.(Indefinite)
	return ok
}

// FaultTag is the annotation lane of recorded faults.
const FaultTag = "faults"

// OpID identifies an operation within one Recorder.
type OpID int

type op struct {
	client   int
	input    any
	output   any
	call     int64
	ret      int64
	returned bool
	metadata any
}

// Recorder collects operations. It is not safe for concurrent use; in the
// simulator only the running actor calls it.
type Recorder struct {
	steps       func() int64
	lastStep    int64
	sub         int64
	clientIDs   map[string]int
	clients     []string
	ops         []op
	annotations []porcupine.Annotation
}

// NewRecorder returns a recorder whose clock is steps, normally
// (*world.World).Step.
func NewRecorder(steps func() int64) *Recorder {
	return &Recorder{steps: steps, lastStep: -1, clientIDs: map[string]int{}}
}

// Now returns a fresh logical timestamp (strictly increasing).
func (r *Recorder) Now() int64 {
	s := r.steps()
	if s != r.lastStep {
		r.lastStep, r.sub = s, 0
	} else {
		r.sub++
	}
	return s<<16 + r.sub
}

// StepTime converts a scheduler step to the timestamp scale (the first
// instant of that step), for annotations given in steps.
func StepTime(step int64) int64 { return step << 16 }

func (r *Recorder) client(name string) int {
	id, ok := r.clientIDs[name]
	if !ok {
		id = len(r.clients)
		r.clientIDs[name] = id
		r.clients = append(r.clients, name)
	}
	return id
}

// Clients returns the client names in porcupine ClientId order.
func (r *Recorder) Clients() []string { return slices.Clone(r.clients) }

// Call records the invocation of an operation by client (a name; clients
// get porcupine ClientIds in order of first appearance).
func (r *Recorder) Call(client string, input any) OpID {
	r.ops = append(r.ops, op{client: r.client(client), input: input, call: r.Now()})
	return OpID(len(r.ops) - 1)
}

// SetMetadata attaches visualization metadata to an operation.
func (r *Recorder) SetMetadata(id OpID, metadata any) { r.ops[id].metadata = metadata }

// Return records the response of a pending operation. Returning an
// operation twice, or one already cut, is an error.
func (r *Recorder) Return(id OpID, output any) error {
	if int(id) < 0 || int(id) >= len(r.ops) {
		return fmt.Errorf("linz: return: unknown operation %d", id)
	}
	o := &r.ops[id]
	if o.returned {
		return fmt.Errorf("linz: return: operation %d (client %s) already completed", id, r.clients[o.client])
	}
	o.output, o.ret, o.returned = output, r.Now(), true
	return nil
}

// Cut makes a pending operation indefinite (its outcome is unknown).
// Cutting a completed operation does nothing.
func (r *Recorder) Cut(id OpID, cause string) {
	o := &r.ops[id]
	if o.returned {
		return
	}
	o.output, o.ret, o.returned = Indefinite{Cause: cause}, math.MaxInt64, true
}

// CutClient makes every pending operation of client indefinite, e.g. when
// the process serving it crashed.
func (r *Recorder) CutClient(client, cause string) {
	id, ok := r.clientIDs[client]
	if !ok {
		return
	}
	for i := range r.ops {
		if r.ops[i].client == id {
			r.Cut(OpID(i), cause)
		}
	}
}

// CutAll makes every pending operation indefinite.
func (r *Recorder) CutAll(cause string) {
	for i := range r.ops {
		r.Cut(OpID(i), cause)
	}
}

// Pending returns the number of operations not yet returned or cut.
func (r *Recorder) Pending() int {
	n := 0
	for _, o := range r.ops {
		if !o.returned {
			n++
		}
	}
	return n
}

// Fault records a point-in-time fault annotation (now) in the faults lane.
func (r *Recorder) Fault(description, details string) {
	t := r.Now()
	r.annotations = append(r.annotations, porcupine.Annotation{
		Tag: FaultTag, Start: t, End: t, Description: description, Details: details,
		BackgroundColor: "#f4b6b6",
	})
}

// Annotate adds a raw porcupine annotation (times on this recorder's scale:
// use Now or StepTime).
func (r *Recorder) Annotate(a porcupine.Annotation) { r.annotations = append(r.annotations, a) }

// Annotations returns the recorded annotations.
func (r *Recorder) Annotations() []porcupine.Annotation { return slices.Clone(r.annotations) }

// Operations returns the history. Operations still pending are reported as
// indefinite with cause "pending at end" (the recorder keeps them pending).
func (r *Recorder) Operations() []porcupine.Operation {
	out := make([]porcupine.Operation, len(r.ops))
	for i, o := range r.ops {
		ret, output := o.ret, o.output
		if !o.returned {
			ret, output = math.MaxInt64, Indefinite{Cause: "pending at end"}
		}
		out[i] = porcupine.Operation{ClientId: o.client, Input: o.input, Call: o.call, Output: output, Return: ret, Metadata: o.metadata}
	}
	return out
}

// Check checks the history against model. timeout 0 means no limit; with a
// timeout the result may be porcupine.Unknown, which callers must report as
// inconclusive, never as a pass.
func (r *Recorder) Check(model porcupine.Model, timeout time.Duration) (porcupine.CheckResult, porcupine.LinearizationInfo) {
	return porcupine.CheckOperationsVerbose(model, r.Operations(), timeout)
}

// Visualize writes porcupine's interactive HTML for info to path, with the
// recorded fault annotations drawn in.
func (r *Recorder) Visualize(model porcupine.Model, info porcupine.LinearizationInfo, path string) error {
	info.AddAnnotations(r.annotations)
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return fmt.Errorf("linz: visualize %s: %w", path, err)
	}
	return nil
}

// PartitionBy returns a porcupine Partition function grouping operations by
// key(input), partitions ordered by key so the result is deterministic.
func PartitionBy(key func(input any) string) func([]porcupine.Operation) [][]porcupine.Operation {
	return func(history []porcupine.Operation) [][]porcupine.Operation {
		groups := map[string][]porcupine.Operation{}
		for _, o := range history {
			k := key(o.Input)
			groups[k] = append(groups[k], o)
		}
		keys := make([]string, 0, len(groups))
		for k := range groups {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([][]porcupine.Operation, len(keys))
		for i, k := range keys {
			out[i] = groups[k]
		}
		return out
	}
}
