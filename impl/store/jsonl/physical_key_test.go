package jsonl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// session/in-memory-storage-state.ts applyValidated keys lists by
// physicalKey(namespace, key) = `${namespace}\u0000${key}`: a delete through
// another address with the same physical key drops the list, so the next
// append builds list("a\u0000b", "c") and values.ts validateAddress throws.
func TestListDeleteByPhysicalKeyAsPi(t *testing.T) {
	content := hdr + `{"kind":"list","op":"append","seq":1,"namespace":["a\u0000b"],"key":"c","value":1}` + "\n" +
		`{"kind":"list","op":"delete","seq":2,"namespace":"a","key":"b\u0000c"}` + "\n" +
		`{"kind":"list","op":"append","seq":3,"namespace":"a\u0000b","key":"c","value":2}` + "\n"
	_, _, err := openContent(t, content, Options{})
	requireLineError(t, err, "4", `Value namespace must not contain \u0000`)
}

// in-memory-storage-state.ts applyValidated: an append whose physical key
// names an existing list pushes to it without building an address.
func TestListAppendByPhysicalKeyAsPi(t *testing.T) {
	content := hdr + `{"kind":"list","op":"append","seq":1,"namespace":["a\u0000b"],"key":"c","value":1}` + "\n" +
		`{"kind":"list","op":"append","seq":2,"namespace":"a","key":"b\u0000c","value":2}` + "\n"
	_, _, err := openContent(t, content, Options{})
	require.NoError(t, err)
}

// A list whose namespace pi accepted as ["a\u0000b"] cannot be written back
// (a record keeps the address's String(), which as a string pi's
// validateAddress refuses): Compact refuses and leaves the file as it was,
// still opening, instead of publishing a file no open accepts.
func TestCompactKeepsAFileItCannotRewrite(t *testing.T) {
	content := hdr + `{"kind":"list","op":"append","seq":1,"namespace":["a\u0000b"],"key":"c","value":1}` + "\n"
	s, m, err := openContent(t, content, Options{})
	require.NoError(t, err)
	err = s.Compact()
	require.ErrorIs(t, err, errAddressNotRewritable)
	require.NoError(t, s.Close())
	require.Equal(t, content, string(m.content(path)))
	_, err = Open(testEnv(m), path, Options{})
	require.NoError(t, err)
}
