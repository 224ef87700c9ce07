package campaign

// FailureKind classifies a failing run: which check failed. It is the one
// set of names the simulator's checks report with, the campaign shrinks by
// (a candidate must fail with the same kind), failures group by, and the
// CLI prints, writes to JSON reports and JUnit, and stores in tapes. It
// serializes as its string; the strings are stable so that earlier reports
// and tapes read the same.
type FailureKind string

// The failure kinds. The sim/lanesim checks that report each are named in
// its doc.go; other scenarios (sim/subject, tests' toy scenarios) reuse the
// same names where they mean the same.
const (
	// KindInvariant: one of the seed's invariants (sim/invariants) or a
	// check that states one directly — forks and migrations, tool batches,
	// snapshots' live partial, provider requests only after a committed
	// intent, structural generations, the client fold.
	KindInvariant FailureKind = "invariant"
	// KindModelMismatch: the implementation disagrees with model/lane run
	// in lockstep — committed state, a transaction's write list, events,
	// snapshots or a step's result.
	KindModelMismatch FailureKind = "model-mismatch"
	// KindModel: the committed frame prefix disagrees with the model
	// observer (model/frames).
	KindModel FailureKind = "model"
	// KindStore: the backend disagrees with the reference built from
	// acknowledged commits, or acknowledged seqs are not consecutive and
	// growing.
	KindStore FailureKind = "store"
	// KindEvents: an event carries a seq its row's acknowledged write did
	// not get.
	KindEvents FailureKind = "events"
	// KindLiveness: the run did not finish — the world's step budget ran
	// out, it deadlocked, or operations were left unsettled at the end.
	KindLiveness FailureKind = "liveness"
	// KindLinearizability: the client-visible history is not linearizable
	// (porcupine).
	KindLinearizability FailureKind = "linearizability"
	// KindRecovery: a restarted process could not reopen its storage or
	// lane, or the restored lane contradicts the committed state.
	KindRecovery FailureKind = "recovery"
	// KindWire: the final transcript's wire projection fails or a
	// provider rejects it.
	KindWire FailureKind = "wire"
	// KindWorld: the simulated world failed (an actor's error, a commit
	// from a crashed process): the simulation itself, not a check.
	KindWorld FailureKind = "world"
	// KindSetup: the run could not be set up (profile, backend, bug
	// switches, a structural mutant's fixture).
	KindSetup FailureKind = "setup"
	// KindHarness: the campaign could not run the scenario at all.
	KindHarness FailureKind = "harness"
	// KindNondeterminism: a seed's re-runs produced different trace
	// hashes, or its shrunk tape replays to something else: the
	// simulator, not the code under test, is broken.
	KindNondeterminism FailureKind = "nondeterminism"
)
