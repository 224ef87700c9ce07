package lanesim

import "github.com/frameproof/frameproof/sim/world"

// actorDef is one row of the actor table: an actor the profile switches on
// (on), started once in the root process or, inLane, in every lane process
// (a crash kills it with the process and the restarted process starts it
// again). Its body is in actor_<name>.go; an actor with state of its own
// keeps it in its own type there.
type actorDef struct {
	name   string
	inLane bool
	on     func(p profile) bool
	run    func(r *runner)
}

// actorTable lists every actor the runner starts, in start order. The order
// is part of the schedule (it decides each actor's place among the
// runnable), so reordering rows changes every seed's trace. The lane's
// provider streams, listeners and line actors are started by the lane's
// callbacks (provider.go, actor_listener.go), not from here. (A function,
// not a var: the actors start processes, which start actors.)
func actorTable() []actorDef {
	return []actorDef{
		{"driver", true, func(profile) bool { return true }, (*runner).driver},
		{"second-driver", true, func(p profile) bool { return p.secondDriver }, (*runner).secondDriver},
		{"structural", true, func(p profile) bool { return p.structural > 0 }, func(r *runner) { r.structural.run() }},
		{"crasher", false, func(p profile) bool { return p.crashes > 0 }, (*runner).crasher},
		{"finalizer", false, func(p profile) bool { return p.finalizer }, func(r *runner) { r.finalizer.run() }},
		{"canceller", false, func(p profile) bool { return p.canceller }, (*runner).canceller},
		{"queuer", false, func(p profile) bool { return p.canceller }, (*runner).queuer},
		{"reader", false, func(p profile) bool { return p.snapshots > 0 }, (*runner).reader},
		{"closer", false, func(p profile) bool { return p.closer }, (*runner).closer},
		{"poller", false, func(p profile) bool { return p.deferred }, func(r *runner) { r.poller.run() }},
	}
}

// startActors starts, in proc, the profile's actors of one kind (the lane
// process's or the root's).
func (r *runner) startActors(proc *world.Process, inLane bool) {
	for _, a := range actorTable() {
		if a.inLane == inLane && a.on(r.p) {
			run := a.run
			proc.Go(a.name, func() { run(r) })
		}
	}
}
