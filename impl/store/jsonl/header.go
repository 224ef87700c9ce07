package jsonl

import (
	"errors"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
)

// ParseHeader is pi's parseJsonlSessionHeader (session/jsonl/codec.ts) for
// a header line without its newline: a v4 header, or an error. A v3 legacy
// header is an error for which IsLegacyV3 holds; ParseSessionHeader
// normalizes it as pi's repo does.
func ParseHeader(line []byte) (Header, error) { return parseHeader(line) }

// IsLegacyV3 reports whether err is ParseHeader's answer for a v3 legacy
// session header.
func IsLegacyV3(err error) bool { return errors.Is(err, errLegacyV3) }

// ParseSessionHeader is what pi's JsonlSessionRepo.readSessionMetadata
// makes of a first line: a v4 header as ParseHeader parses it, or a v3
// legacy header normalized by metadataFromLegacyV3Header
// (jsonl/legacy-v3.ts; its parentSession is resolved through fsys to the
// parent's id, or kept as legacyParentSessionPath). A v3 header carries no
// nextSeq: only opening the file counts its records.
func ParseSessionHeader(fsys env.FS, line []byte) (Header, error) {
	h, err := parseHeader(line)
	if !errors.Is(err, errLegacyV3) {
		return h, err
	}
	v, err := pi.ParseJSON(string(line))
	if err != nil {
		return Header{}, errHeaderNotJSON // unreachable: parseHeader parsed it
	}
	return legacyHeader(fsys, v), nil
}
