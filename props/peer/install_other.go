//go:build !unix

package peer

// lockDir is a no-op where flock is missing: parallel test packages may
// then run npm ci side by side, which npm survives but repeats.
func lockDir(string) (func(), error) { return func() {}, nil }
