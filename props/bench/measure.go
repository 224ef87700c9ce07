package bench

import (
	"fmt"
	"runtime"
	"time"
)

// Sample is what one timed loop measured, per operation.
type Sample struct {
	Ops       int
	WallNs    float64 // wall-clock ns per op
	CPUNs     float64 // process CPU (user+system, all threads incl. GC) ns per op
	Allocs    float64 // heap allocations per op
	WallTotal time.Duration
}

// Budget is how long a timed loop runs: long enough to average out a
// scheduler hiccup, short enough for the whole family to run in seconds
// under Quick.
func (o Options) Budget() time.Duration {
	if o.Quick {
		return 40 * time.Millisecond
	}
	return 700 * time.Millisecond
}

// Measure runs op once untimed (to warm caches and size buffers), then
// repeatedly until budget has passed (at least once), and reports the
// averages. It is the plain timed loop the families share: testing.Benchmark
// needs the test binary's flags, and the shared machine makes CPU time a
// steadier figure than wall time, so both are kept.
//
// The clock is read once per batch, not once per op: a read costs tens of
// ns, as much as the cheapest ops timed here (a 50-entry scan), and would
// be counted as theirs. Batches double up to about batchSpan of work, so
// the loop overshoots its budget by at most that. pi's side
// (storage-bench.mjs timed) batches the same way.
func Measure(budget time.Duration, op func() error) (Sample, error) {
	if err := op(); err != nil {
		return Sample{}, err
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := cpuTime()
	start := time.Now()
	n, batch := 0, 1
	var wall time.Duration
	for {
		for range batch {
			if err := op(); err != nil {
				return Sample{}, err
			}
		}
		n += batch
		if wall = time.Since(start); wall >= budget {
			break
		}
		batch = nextBatch(batch, n, wall)
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&after)
	return Sample{
		Ops:       n,
		WallNs:    float64(wall.Nanoseconds()) / float64(n),
		CPUNs:     float64(cpu.Nanoseconds()) / float64(n),
		Allocs:    float64(after.Mallocs-before.Mallocs) / float64(n),
		WallTotal: wall,
	}, nil
}

// batchSpan is about how much work one batch of Measure's loop does
// between clock reads.
const batchSpan = 5 * time.Millisecond

// nextBatch doubles a batch while n ops took less than batchSpan a
// batch's worth: at least 1, at most what batchSpan holds at the rate so
// far.
func nextBatch(batch, n int, elapsed time.Duration) int {
	perOp := max(elapsed/time.Duration(n), 1)
	return max(1, min(2*batch, int(batchSpan/perOp)))
}

// cpuTime is processCPU without its error: 0 where getrusage is
// unavailable, which shows up as a CPU column of zeros, not a crash.
func cpuTime() time.Duration {
	d, _ := processCPU()
	return d
}

// Num formats a figure with three significant digits and a k/M suffix.
func Num(x float64) string {
	switch {
	case x >= 1e6:
		return fmt.Sprintf("%.2fM", x/1e6)
	case x >= 1e4:
		return fmt.Sprintf("%.0fk", x/1e3)
	case x >= 1e3:
		return fmt.Sprintf("%.2fk", x/1e3)
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 1:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}
