// Package lanesim is the deterministic simulation of one lane: impl/lane runs
// inside a sim/world with a provider actor whose live partial runs ahead of
// its queued events, awaited listeners, the FIFO line committing through a
// storage wrapper with latency and faults, an external finalizer, a
// canceller, a snapshot/reconnect reader, a deferred poller with permits and
// a crasher that kills the lane process at any scheduling point and restarts
// it (faults.FS decides what the JSONL disk keeps), and a structural actor
// running process-local summary generations (Lane.GenerateStructural)
// through the same provider beside ordinary generation (actor_structural.go).
//
// The actors are one table (actors.go), one file each (actor_<name>.go);
// the checkers are types that own their state and subscribe to the run's
// events (checkers.go), one file each (check_<name>.go).
//
// The provider (provider.go) draws every block feature pi-ai's providers
// emit, so an encoder, reducer or store that loses one diverges from the
// model observer: text and thinking signatures written at start, mid-block
// or at the end (and grown again), redacted thinking, tool calls with a
// namespace and a thoughtSignature, arguments streamed from {} or complete
// at start, usage updated between events, and lone surrogates among the
// text deltas.
//
// Every decision comes from one choice.Source, so a seed (or a rapid draw, or
// a shrunk tape) reproduces a run byte for byte. Scenarios are profiles of the
// same runner, one per row of the seed's race table plus close-vs-settlement,
// storage faults, the retry cap, deferred replacement, fork/migration,
// structural generation and a random mix; each runs on every backend of
// impl/store/backends' registry.
//
// Checks run after every acknowledged commit, on every event, frame,
// snapshot and after_response call, after every step and restart and at
// the end:
//   - check_lockstep.go: model/lane runs beside the lane, fed at the moment
//     each decision takes effect on the FIFO line (a commit's
//     acknowledgement, a line item's resolution; a surviving in-flight
//     commit at recovery), and sim/lanecmp compares committed state, events,
//     snapshots and step results ("model-mismatch");
//   - check_tx.go, check_seqs.go: each acknowledged transaction's writes,
//     one by one and in order, against the write list model/lane states for
//     it from pi's rules ("model-mismatch"); every commit's seqs consecutive
//     in write order and growing, and entry_added/usage carrying their row's
//     seq ("store", "events");
//   - check_invariants.go: the seed's twelve invariants (sim/invariants)
//     over the acknowledged state, the event/frame log, snapshots, restored
//     operations and the structural generations' (op, resp) pairs;
//   - the other check_*.go files: what neither covers — the backend against
//     a reference built from acknowledged commits only (check_store.go), the
//     committed frame prefix against the model observer (model/frames) per
//     commit (check_prefix.go), live-partial ownership of snapshots taken at
//     any scheduling point (check_snapshot.go), provider requests only after
//     a committed intent (check_intent.go), recovery liveness
//     (check_end.go), forks/migrations (check_forkmigrate.go), the
//     client-visible history under porcupine (check_linz.go) and the final
//     transcript's wire projections (impl/replay + model/wire,
//     check_wire.go).
package lanesim
