// Package lane is the lane lifecycle of one durable assistant response,
// following pi's code (pi-durability-facts.md §4–6) and the seed
// assistant-durability.md: the intent transaction that reserves response and
// usage ids, the provider loop that enqueues one fenced frame append per
// converted event on the FIFO line without awaiting it, settlement in pi's
// write order, first-match-wins classification, recovery of orphaned
// effect_pending from the committed frame prefix, cancellation
// reconciliation, deferred polls, external finalization, snapshots, idle
// forks and frame migrations.
//
// Every wait goes through env futures (the line, the listener, the
// provider's Stream.Next), so the simulator can drive every await.
//
// The required-test map is in required_tests.go.
package lane
