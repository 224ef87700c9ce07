//go:build race

package pi

// raceEnabled reports a -race build. Under the race detector sync.Pool
// drops a random share of what is Put on purpose, so a count of
// allocations that relies on the parser pool is not defined there.
const raceEnabled = true
