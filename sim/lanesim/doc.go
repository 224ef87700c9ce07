// Package lanesim is the deterministic simulation of one lane: impl/lane runs
// inside a sim/world with a provider actor whose live partial runs ahead of
// its queued events, awaited listeners, the FIFO line committing through a
// storage wrapper with latency and faults, an external finalizer, a
// canceller, a snapshot/reconnect reader, a deferred poller with permits and
// a crasher that kills the lane process at any scheduling point and restarts
// it (faults.FS decides what the JSONL disk keeps).
//
// Every decision comes from one choice.Source, so a seed (or a rapid draw, or
// a shrunk tape) reproduces a run byte for byte. Scenarios are profiles of the
// same runner, one per row of the seed's race table plus close-vs-settlement,
// storage faults, the retry cap, deferred replacement, fork/migration and a
// random mix; each runs on the memory, jsonl and sqlite backends.
//
// Checks (checks.go) run after every acknowledged commit, on every event,
// snapshot and after_response call, after every restart and at the end: the
// seed's twelve invariants, the committed frame list against the model
// observer (model/frames) of the events the lane consumed, the backend's
// state against a reference built from acknowledged commits only, the
// client-visible history under porcupine (linz.go), recovery liveness and the
// final transcript's wire projections (impl/replay + model/wire).
//
// model/lane and props/invariants did not exist when this package was
// written; the checks it needs are written here (checks.go).
package lanesim
