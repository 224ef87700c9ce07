package jsonl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value whose bytes are ill-formed UTF-8 (here a four-byte sequence cut
// short, "\xf0\x98\x80") is what node's read of the file makes of it: one
// U+FFFD for the maximal subpart, as pi's JsonlStorage.open reads it
// (NodeExecutionEnv.readTextFile). Found by props/jsonlpi's larger run
// (FRAMEPROOF_JSONLPI_CHECKS=20000, rapid seed 13871471524260038300):
// frameproof kept the raw bytes, which read back as three.
func TestOpenDecodesAnIllFormedValueAsNode(t *testing.T) {
	s := mustOpen(t, hdr+"{\"kind\":\"value\",\"op\":\"set\",\"seq\":1,\"namespace\":\"n\",\"key\":\"k\",\"value\":\"\xf0\x98\x80\"}\n"+
		"[{\"kind\":\"list\",\"op\":\"append\",\"seq\":2,\"namespace\":\"l\",\"key\":\"k\",\"value\":\"a\x83\xa9\"}]\n")
	vs, err := s.ScanValues("n", "")
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.Equal(t, "\"\uFFFD\"", string(vs[0].Value))
	assert.Equal(t, int64(3), s.NextSeq())
}
