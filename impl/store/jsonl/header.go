package jsonl

import "errors"

// ParseHeader is pi's parseJsonlSessionHeader (session/jsonl/codec.ts) for
// a header line without its newline: a v4 header, or an error. A v3 legacy
// header is an error for which IsLegacyV3 holds (pi imports it; frameproof
// does not yet).
func ParseHeader(line []byte) (Header, error) { return parseHeader(line) }

// IsLegacyV3 reports whether err is ParseHeader's refusal of a v3 legacy
// session header.
func IsLegacyV3(err error) bool { return errors.Is(err, errLegacyV3) }
