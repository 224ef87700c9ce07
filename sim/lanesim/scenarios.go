package lanesim

// profile is one scenario: which actors run and how faults are drawn.
type profile struct {
	name, desc    string
	rows          []string
	ops           int     // operations started one after another
	maxAttempts   int     // retry policy
	gen           genOpts // provider responses
	crashes       int     // crash attempts by the crasher
	finalizer     bool
	canceller     bool
	snapshots     int // snapshot reads by the reader
	closer        bool
	storageFaults int // 1-in-N chance per commit (0: off)
	deferred      bool
	forkMigrate   bool
	pollCrash     bool // crash aimed at the middle of deferred polls
	// badHandle: a poll may answer deferred with a handle that does not
	// decode; the next step of the operation faults (provider.go)
	badHandle     bool
	commitLatency bool
	compaction    bool
	// structural generations run beside ordinary generation (actor_structural.go)
	structural      int
	structuralCrash bool // crashes aimed at the middle of structural streams
	// a second caller of Step observes the driver's step (seconddriver.go)
	secondDriver bool
	// frameBudget is lane.Config.FrameBudget (0, pi's default: no cap)
	frameBudget int
	// lostFaults runs pi's rule for a drive step whose operation the
	// finalizer removed before the step's command got its turn: the
	// command faults the harness (lane.Config.SkipStaleSettlement off, and
	// the model predicts the fault). Off, the simulator sets the option.
	lostFaults bool
	// sequentialTools sets lane.Config.ToolExecution "sequential"
	// (frameproof's option); off, pi's default runs batches in
	// runParallel's order
	sequentialTools bool
	// thresholdOver, when positive, gives the lane and the model a model
	// registry (lane.Config.Models) knowing the simulated model with a
	// context window thresholdOver-1 tokens over the runs' reserveTokens,
	// so boundaries whose context is bigger compact (threshold.go); 0 is
	// pi with a registry that knows no model
	thresholdOver int
	// unavailable, when set, is what one run (unavailableRun, in start
	// order) lacks in the lane process: "model" (the run's model is not in
	// the registry, which the profile then has even without a threshold)
	// or "tool" (an active tool name is not among the lane's tools); pi's
	// prepareGeneration fails that run before its intent (unavailable.go)
	unavailable    string
	unavailableRun int
	// runConfigs, when set, picks the configuration of each run, in start
	// order, from simConfigurations: runs after the first may bring
	// another configuration than the lane's (setConfiguration at StartRun)
	runConfigs []int
	// storeInputs: what the JSONL store starts from besides its own writes
	// (storeinputs.go)
	storeInputs storeInputs
	// reach: the swarm's draws aimed at the reach registry (reach.go)
	reach reachProfile
}

func base(name, desc string, rows ...string) profile {
	return profile{name: name, desc: desc, rows: rows, ops: 1, maxAttempts: 3,
		gen: genOpts{maxBlocks: 3, errorWeight: 1}, commitLatency: true, snapshots: 2}
}

var profiles = func() []profile {
	var ps []profile
	add := func(p profile) { ps = append(ps, p) }

	p := base("append-order", "frame append vs next frame: appends enqueue synchronously in provider order", RowAppendNext)
	p.gen.maxBlocks = 4
	add(p)

	p = base("append-vs-settlement", "settlement awaits the latest append; after_response sees every accepted frame committed", RowAppendSettle)
	add(p)

	p = base("update-vs-commit", "live update delivery vs frame commit; snapshots reflect only committed frames", RowUpdateCommit)
	p.snapshots = 4
	add(p)

	p = base("append-vs-finalization", "an external finalizer races frame appends: append first is deleted, finalization first fences", RowAppendFinalize)
	p.finalizer = true
	add(p)

	p = base("crash-with-queued-writes", "crash with appends queued on the line: only the committed prefix restores", RowQueuedLoss)
	p.crashes = 2
	add(p)

	p = base("final-frame-vs-settlement", "crash between the final frame and settlement: recovery settles the committed prefix", RowFinalFrame)
	p.crashes = 2
	p.canceller = true
	add(p)

	p = base("activation-vs-snapshot", "reconnect snapshot vs recovery activation: both reduce the same committed prefix", RowActivationSnap)
	p.crashes = 2
	p.snapshots = 4
	add(p)

	p = base("unknown-vs-retry", "an interrupted generation commits its synthetic error under the old ids before the next attempt", RowUnknownRetry)
	p.crashes = 3
	p.maxAttempts = 2
	add(p)

	p = base("poll-replacement", "an orphaned deferred poll: suspended without permit, replaced with a fresh list when a permit arrives", RowPollReplacement)
	p.deferred = true
	p.crashes = 2
	p.pollCrash = true
	p.snapshots = 3
	add(p)

	p = base("close-vs-settlement", "close is a controlled crash: no synthetic write, admitted work drains, reopen restores effect_pending", RowCloseSettle)
	p.closer = true
	add(p)

	p = base("storage-fault", "a failed commit faults the process: no later settlement commits in it; restart recovers", RowQueuedLoss, RowUnknownRetry)
	p.storageFaults = 6
	add(p)

	p = base("retry-cap", "interruptions at the retry cap terminal-fail in the settlement transaction", RowUnknownRetry)
	p.maxAttempts = 1
	p.crashes = 2
	p.gen.errorWeight = 3
	add(p)

	p = base("deferred-replacement", "deferred polls with permits, crashes and cancellation", RowPollReplacement)
	p.deferred = true
	p.crashes = 1
	p.canceller = true
	add(p)

	p = base("bad-deferred-handle", "a poll answers deferred with a handle pi refuses: the next poll, wait or cancel reconciliation faults")
	p.deferred = true
	p.badHandle = true
	p.crashes = 1
	p.canceller = true
	add(p)

	p = base("fork-migration", "restored effect_pending: idle forks copy no frames; migrations map or drop whole lists", RowQueuedLoss)
	p.crashes = 2
	p.forkMigrate = true
	add(p)

	p = base("compaction", "JSONL compaction of deleted frame bytes across crashes keeps every seq", RowQueuedLoss)
	p.ops = 2
	p.crashes = 1
	p.compaction = true
	add(p)

	p = base("structural-generation", "structural (summary) streams run beside assistant generation through the same provider, across crashes: no frame list, no lifecycle events")
	p.ops = 2
	p.crashes = 1
	p.structural = 4
	p.structuralCrash = true
	add(p)

	p = base("mix", "every actor and fault at once", RowAppendNext, RowAppendSettle, RowUpdateCommit, RowAppendFinalize,
		RowQueuedLoss, RowFinalFrame, RowActivationSnap, RowUnknownRetry)
	p.ops = 2
	p.crashes = 2
	p.finalizer = true
	p.canceller = true
	p.snapshots = 3
	p.storageFaults = 20
	p.compaction = true
	p.forkMigrate = true
	p.structural = 2
	p.secondDriver = true
	add(p)
	return ps
}()
