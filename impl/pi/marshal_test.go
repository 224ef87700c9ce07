package pi

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// appendFunc is an Appender of its own.
type appendFunc func([]byte) []byte

func (f appendFunc) AppendJSON(dst []byte) []byte { return f(dst) }

// TestMarshalMatchesAppendFromNil: Marshal through its pooled buffer
// returns what AppendJSON(nil) does, as a slice of its own that a later
// Marshal does not overwrite; nothing appended is nil, as before.
func TestMarshalMatchesAppendFromNil(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var containers int
		text := jsonText(t, 0, &containers)
		v, err := ParseJSON(text)
		if err != nil {
			t.Fatal(err)
		}
		want := v.AppendJSON(nil)
		got, err := Marshal(v)
		if err != nil || !bytes.Equal(got, want) || cap(got) != len(got) {
			t.Fatalf("Marshal(%s) = %q (cap %d), %v; want %q", text, got, cap(got), err, want)
		}
		kept := bytes.Clone(got)
		other, _ := Marshal(appendFunc(func(dst []byte) []byte { return append(dst, bytes.Repeat([]byte("x"), len(want)+1)...) }))
		if !bytes.Equal(got, kept) || len(other) != len(want)+1 {
			t.Fatalf("a later Marshal changed %q to %q", kept, got)
		}
	})
	if got, err := Marshal(appendFunc(func(dst []byte) []byte { return dst })); got != nil || err != nil {
		t.Errorf("Marshal of nothing = %q, %v; want nil", got, err)
	}
	if _, err := Marshal(JSONValue{}); err != errNotSerializable {
		t.Errorf("Marshal(undefined) error %v", err)
	}
	if _, err := Marshal(3); err == nil {
		t.Errorf("Marshal(3): no error")
	}
}
