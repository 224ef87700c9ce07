package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// simGCPercent is the garbage collector's target for the simulator's
// commands. A campaign keeps little live memory (one small world per
// running cell) and allocates fast, so at Go's default of 100 it collected
// every few megabytes: at 400, `frameproof sim --seeds 20` spent about a
// quarter less CPU (6.0-6.4 s → 4.4-4.9 s) for 52 MB of peak RSS instead of
// 32 MB (`/usr/bin/time -v frameproof sim --seeds 20`, with GOGC=100 and
// without, on the 17-scenario campaign of an earlier round). On the
// 19-scenario campaign, 800 spent about 8% less CPU than 400 (user+sys of
// `frameproof sim -q --seeds 40`, five alternated pairs on the 2-core
// machine: 3.81-4.21 s at 400, 3.65-3.80 s at 800) for 93-98 MB of peak
// RSS instead of 65-67 MB; 1600 saved little more (3.6-3.7 s) for 167-182
// MB. Re-measure the same way after the campaign changes.
const simGCPercent = 800

// tuneGCForSim sets simGCPercent unless the user chose GOGC.
func tuneGCForSim() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(simGCPercent)
	}
}

// tuneProcsForSim gives the runtime one P per job when --jobs asks for
// fewer jobs than it has Ps (unless the user chose GOMAXPROCS). A job runs
// one world at a time, and a world one actor at a time, handing its baton
// over a channel at every step; with a P to spare, each hand-off woke that
// P's thread, which spun looking for work and slept again, and the woken
// actor could move across threads: `frameproof sim --seeds 30 --jobs 1`
// cost 5.3-5.6 CPU-s at GOMAXPROCS 2 and 4.4-4.6 at GOMAXPROCS 1 on this
// project's 2-core machine (/usr/bin/time, run together). The default
// (--jobs = GOMAXPROCS) is unchanged. The returned func restores the
// previous setting (the command's tests run it in their own process).
func tuneProcsForSim(jobs int) (restore func()) {
	prev := runtime.GOMAXPROCS(0)
	if _, set := os.LookupEnv("GOMAXPROCS"); !set && jobs > 0 && jobs < prev {
		runtime.GOMAXPROCS(jobs)
		return func() { runtime.GOMAXPROCS(prev) }
	}
	return func() {}
}
