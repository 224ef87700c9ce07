package faults

import (
	"io/fs"
	"syscall"

	"github.com/frameproof/frameproof/sim/choice"
)

// Op names a file-system operation that can be made to fail.
type Op string

// Operations that accept injected errors.
const (
	OpRead       Op = "read"
	OpCreate     Op = "create"
	OpOpenAppend Op = "openappend"
	OpWrite      Op = "write"
	OpSync       Op = "sync"
	OpSyncDir    Op = "syncdir"
	OpRename     Op = "rename"
	OpRemove     Op = "remove"
)

// The errors a disk typically returns.
var (
	EIO    error = syscall.EIO
	ENOSPC error = syscall.ENOSPC
)

type scheduled struct {
	op   Op
	path string // "" matches any path
	err  error
}

type rate struct {
	oneIn int
	err   error
}

// injector holds the error schedule. It is used with FS.mu held.
type injector struct {
	next  []scheduled
	rates map[Op]rate
	count map[Op]int
}

// FailNext makes the next op (on path, or on any path when path is "")
// fail with err. Several calls queue up. A failing Write may still leave a
// prefix of its bytes written (a short write, chosen by the choice.Source); a
// failing Sync loses the file's pending data as Linux does.
func (f *FS) FailNext(op Op, path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if path != "" {
		path = clean(path)
	}
	f.inject.next = append(f.inject.next, scheduled{op: op, path: path, err: err})
}

// FailRate makes each op fail with err with probability 1/oneIn, decided by
// the choice.Source. oneIn <= 0 turns the rate off.
func (f *FS) FailRate(op Op, oneIn int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inject.rates == nil {
		f.inject.rates = map[Op]rate{}
	}
	if oneIn <= 0 {
		delete(f.inject.rates, op)
		return
	}
	f.inject.rates[op] = rate{oneIn: oneIn, err: err}
}

// Injected returns how many errors were injected per operation.
func (f *FS) Injected() map[Op]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[Op]int{}
	for k, v := range f.inject.count {
		out[k] = v
	}
	return out
}

// fail returns the injected error for this operation, if any, as a
// *fs.PathError wrapping it.
func (in *injector) fail(f *FS, op Op, path string) error {
	var err error
	for i, s := range in.next {
		if s.op == op && (s.path == "" || s.path == path) {
			err = s.err
			in.next = append(in.next[:i:i], in.next[i+1:]...)
			break
		}
	}
	if err == nil {
		if r, ok := in.rates[op]; ok && choice.Chance(f.choices, "inject "+string(op)+" "+path, 1, r.oneIn) {
			err = r.err
		}
	}
	if err == nil {
		return nil
	}
	if in.count == nil {
		in.count = map[Op]int{}
	}
	in.count[op]++
	return &fs.PathError{Op: string(op), Path: path, Err: err}
}

// ClearFaults drops every scheduled failure and rate (e.g. before recovery,
// so that a failure the workload never reached does not hit the reopen).
func (f *FS) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inject.next = nil
	f.inject.rates = nil
}
