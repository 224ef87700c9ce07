package store

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

// pi: session/jsonl/storage.ts JsonlStorage.open reads the file with
// NodeExecutionEnv.readTextFile (node's readFile(path, "utf8")), whose
// decoder writes one U+FFFD per maximal subpart of an ill-formed sequence.
// The expectations are node 20's Buffer.from(hex, "hex").toString("utf8").
// Found by props/jsonlpi: a flipped bit in "é" made pi's namespace two
// U+FFFD and frameproof's (strings.ToValidUTF8) one.
func TestNodeTextDecodesAsNodeReadFile(t *testing.T) {
	for in, want := range map[string]string{
		"8341":     "\uFFFDA",
		"83a9":     "\uFFFD\uFFFD",
		"e28241":   "\uFFFDA",
		"f09f98":   "\uFFFD",
		"eda080":   "\uFFFD\uFFFD\uFFFD",
		"c0af":     "\uFFFD\uFFFD",
		"f4908080": "\uFFFD\uFFFD\uFFFD\uFFFD",
		"61ff62":   "a\uFFFDb",
		"c3a9":     "é",
		"e0809f":   "\uFFFD\uFFFD\uFFFD",
		"f0":       "\uFFFD",
		"e2":       "\uFFFD",
		"f09f9880": "\U0001F600",
	} {
		b, err := hex.DecodeString(in)
		if err != nil {
			t.Fatal(err)
		}
		assert.Equal(t, want, NodeText(b), "%s", in)
	}
}
