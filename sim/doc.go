// Package sim is frameproof's deterministic simulator.
//
// The kernel is split into small packages, each with one job:
//
//   - sim/choice   — the choice source: one stream of Intn decisions that
//     drives inputs, scheduling and faults of a run. Backed by rapid
//     (FromRapid, shrinks in go test), by a seeded PRNG that records a
//     tape (NewSeeded), or by a tape replayer (NewReplay).
//   - sim/trace    — the canonical JSONL step trace and its sha256 hash.
//   - sim/world    — the deterministic world: actors (one runs at a time),
//     futures, virtual clock, deterministic ids, processes that crash and
//     restart. It implements env.Executor, env.Clock and env.IDs.
//   - sim/shrink   — delta debugging of a failing tape.
//   - sim/campaign — runs a scenario over many seeds, re-checks determinism,
//     shrinks failures and prints reproduction commands.
//   - sim/linz     — records client-visible operations for porcupine with
//     step-based timestamps, indefinite (crash-cut) operations and fault
//     annotations for the HTML visualization.
//   - sim/lanecmp  — compares the lane under test with model/lane,
//     transaction by transaction (write lists with their values), and
//     event by event.
//   - sim/invariants — the seed's invariants over a run's committed log and
//     store state, checked incrementally after every acknowledged commit.
//
// The scenarios live in sim/lanesim: one lane (provider, lane loop, line
// committer, finalizer, canceller, reader, poller, crasher) on every store
// of impl/store/backends' registry, built on these packages and run by
// `frameproof sim`. See the package doc of sim/world for the actor model.
package sim
