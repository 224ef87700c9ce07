package storeconform

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a rapid.TB that records a case's failure instead of failing
// a Go test; Fatal and FailNow end the case's goroutine.
type recorder struct {
	name   string
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Name() string              { return r.name }
func (r *recorder) Logf(f string, a ...any)   { r.log(fmt.Sprintf(f, a...)) }
func (r *recorder) Log(a ...any)              { r.log(fmt.Sprint(a...)) }
func (r *recorder) Skipf(f string, a ...any)  { r.log(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (r *recorder) Skip(a ...any)             { r.log(fmt.Sprint(a...)); runtime.Goexit() }
func (r *recorder) SkipNow()                  { runtime.Goexit() }
func (r *recorder) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *recorder) Error(a ...any)            { r.fail(fmt.Sprint(a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (r *recorder) Fatal(a ...any)            { r.fail(fmt.Sprint(a...)); runtime.Goexit() }
func (r *recorder) FailNow()                  { r.fail(""); runtime.Goexit() }
func (r *recorder) Fail()                     { r.fail("") }
func (r *recorder) Failed() bool              { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *recorder) log(s string)              { r.mu.Lock(); r.msgs = append(r.msgs, s); r.mu.Unlock() }
func (r *recorder) fail(s string) {
	r.mu.Lock()
	r.failed = true
	if s != "" {
		r.msgs = append(r.msgs, s)
	}
	r.mu.Unlock()
}

// detail is the recorded output, at most maxLines lines.
func (r *recorder) detail(maxLines int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var lines []string
	for _, m := range r.msgs {
		if strings.HasPrefix(m, "[rapid] OK") {
			continue
		}
		lines = append(lines, strings.Split(strings.TrimRight(m, "\n"), "\n")...)
	}
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("... (%d more lines)", len(lines)-maxLines))
	}
	return strings.Join(lines, "\n")
}

// runRecorded runs f on its own goroutine (Fatal ends it) and waits.
func runRecorded(r *recorder, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.fail(fmt.Sprintf("panic: %v", p))
			}
		}()
		f()
	}()
	<-done
}

// rapidMu serializes the rapid settings below (they are process globals).
var rapidMu sync.Mutex

// withRapid runs f with rapid's checks, steps, seed and shrink time set, and no
// fail files written. rapid reads them from its flags; outside `go test`
// (the CLI) the testing flags rapid consults are registered and parsed
// first, with no arguments.
func withRapid(checks, steps int, seed uint64, shrink time.Duration, f func()) {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	if !flag.Parsed() {
		testing.Init()
		_ = flag.CommandLine.Parse(nil)
	}
	set := map[string]string{
		"rapid.checks":     strconv.Itoa(checks),
		"rapid.steps":      strconv.Itoa(steps),
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true",
		"rapid.shrinktime": shrink.String(),
	}
	old := map[string]string{}
	for k, v := range set {
		fl := flag.Lookup(k)
		if fl == nil {
			continue
		}
		old[k] = fl.Value.String()
		_ = fl.Value.Set(v)
	}
	defer func() {
		for k, v := range old {
			_ = flag.Lookup(k).Value.Set(v)
		}
	}()
	f()
}
