package faults

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/frameproof/frameproof/impl/env"
)

// Fault is one I/O error an Armed file system injects on demand.
type Fault string

// The faults Armed injects, each once, into the next call it names.
const (
	// FaultWrite fails the next Write with nothing written.
	FaultWrite Fault = "write"
	// FaultShortWrite writes the first half of the next Write's bytes,
	// then fails it: the torn record a full disk or a dying device leaves.
	FaultShortWrite Fault = "short"
	// FaultSync fails the next Sync.
	FaultSync Fault = "sync"
)

// ArmedFaults lists them.
var ArmedFaults = []Fault{FaultWrite, FaultShortWrite, FaultSync}

// ErrInjected is the cause of every fault Armed injects.
var ErrInjected = errors.New("input/output error (injected)")

// Armed is a real file system (any env.FS) into which a test arms one
// fault at a time: the next file write or sync fails as the fault says,
// then the file system is healthy again. `frameproof serve store
// --faults` serves a store on one, so `conform --suite store` can hold a
// store process to its failed writes (the in-memory FS above is for
// stores in the test's own process).
type Armed struct {
	env.FS
	mu   sync.Mutex
	next Fault // "" when disarmed
}

// NewArmed wraps fsys, disarmed.
func NewArmed(fsys env.FS) *Armed { return &Armed{FS: fsys} }

// Arm makes the next write (FaultWrite, FaultShortWrite) or sync
// (FaultSync) of any file opened through a fail.
func (a *Armed) Arm(f Fault) error {
	switch f {
	case FaultWrite, FaultShortWrite, FaultSync:
	default:
		return fmt.Errorf("faults: unknown fault %q (known: %s)", f, faultNames())
	}
	a.mu.Lock()
	a.next = f
	a.mu.Unlock()
	return nil
}

func faultNames() string {
	names := make([]string, len(ArmedFaults))
	for i, f := range ArmedFaults {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// Offer is an Armed file system as a store server offers it
// (impl/store/serve's Injector): writes always, syncs only when the store
// syncs, since a fault armed for a sync that never comes never fires.
type Offer struct {
	*Armed
	Syncs bool
}

// Faults names the faults offered.
func (o Offer) Faults() []string {
	out := []string{string(FaultWrite), string(FaultShortWrite)}
	if o.Syncs {
		out = append(out, string(FaultSync))
	}
	return out
}

// Inject arms fault, one of those offered.
func (o Offer) Inject(fault string) error {
	if !slices.Contains(o.Faults(), fault) {
		return fmt.Errorf("no fault %q here (offered: %s)", fault, strings.Join(o.Faults(), ", "))
	}
	return o.Arm(Fault(fault))
}

// take disarms and reports whether the armed fault is one of these.
func (a *Armed) take(fs ...Fault) (Fault, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, f := range fs {
		if a.next == f {
			a.next = ""
			return f, true
		}
	}
	return "", false
}

// Create opens path through the armed file system.
func (a *Armed) Create(path string) (env.File, error) {
	f, err := a.FS.Create(path)
	if err != nil {
		return nil, err
	}
	return &armedFile{File: f, a: a, path: path}, nil
}

// OpenAppend opens path through the armed file system.
func (a *Armed) OpenAppend(path string) (env.File, error) {
	f, err := a.FS.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	return &armedFile{File: f, a: a, path: path}, nil
}

type armedFile struct {
	env.File
	a    *Armed
	path string
}

func (f *armedFile) Write(p []byte) (int, error) {
	fault, ok := f.a.take(FaultWrite, FaultShortWrite)
	if !ok {
		return f.File.Write(p)
	}
	n := 0
	if fault == FaultShortWrite {
		var err error
		if n, err = f.File.Write(p[:len(p)/2]); err != nil {
			return n, err
		}
	}
	return n, &fs.PathError{Op: "write", Path: f.path, Err: ErrInjected}
}

func (f *armedFile) Sync() error {
	if _, ok := f.a.take(FaultSync); ok {
		return &fs.PathError{Op: "sync", Path: f.path, Err: ErrInjected}
	}
	return f.File.Sync()
}
