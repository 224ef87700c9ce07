// Package corpus loads and runs frameproof's corpus (corpus/ at the module
// root) outside of the packages that own each family, so that one runner
// serves `go test`, `frameproof corpus run` and `frameproof conform`.
//
// Families:
//
//   - codec: corpus/vectors/codec/*.jsonl, one CodecVector per line (schema
//     1), expected output recorded from pi-ai 1.0.3. Run against any Codec:
//     the Go port (GoCodec) or a process speaking the frameproof stdio
//     protocol v1 (*peer.Peer).
//   - replay: corpus/vectors/replay/*.json (schema 1), projected by
//     impl/replay and accepted by model/wire.
//   - jsonl: corpus/jsonl/*.jsonl with *.expect.json sidecars (schema 1),
//     opened by impl/store/jsonl.
//   - sse: corpus/sse/*.json (frameproof.sse/1), replayed through the Go
//     reference adapters of impl/provider.
package corpus
