package jsonl

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The same through open: a namespace holding "\x83\xa9" is two U+FFFD.
func TestOpenDecodesBadUTF8AsNode(t *testing.T) {
	s := mustOpen(t, hdr+"{\"kind\":\"value\",\"op\":\"set\",\"seq\":1,\"namespace\":\"\x83\xa9\",\"key\":\"k\",\"value\":1}\n")
	vs, err := s.ScanValues("\uFFFD\uFFFD", "")
	assert.NoError(t, err)
	assert.Len(t, vs, 1)
}
