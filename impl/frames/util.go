package frames

import (
	"fmt"
	"slices"

	"github.com/frameproof/frameproof/impl/pi"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// appendJS appends s to a WTF-8 buffer with JS concatenation semantics (a
// split surrogate pair across the boundary is re-joined).
func appendJS(buf []byte, s string) []byte {
	buf = growFor(buf, len(s))
	if len(s) >= 3 && s[0] == 0xED && s[1] >= 0xB0 && len(buf) >= 3 && buf[len(buf)-3] == 0xED && buf[len(buf)-2] >= 0xA0 && buf[len(buf)-2] <= 0xAF {
		joined := pi.Concat(string(buf[len(buf)-3:]), s[:3])
		buf = append(buf[:len(buf)-3], joined...)
		return append(buf, s[3:]...)
	}
	return append(buf, s...)
}

// growFor makes room for n more bytes in buf, doubling its capacity when
// it is full: a block's text grows by many small appends, and append's own
// growth (1.25× for large slices) copies the text four times over.
func growFor(buf []byte, n int) []byte {
	if cap(buf)-len(buf) >= n {
		return buf
	}
	return slices.Grow(buf, max(n, cap(buf)))
}

// stringify is JSON.stringify(v) for a defined value.
func stringify(v pi.JSONValue) string { return string(v.AppendJSON(nil)) }

// blockValue returns c as the value block the codec works on. Callers may
// build content from pointers (*pi.TextContent satisfies pi.Content too);
// they read like the value, and a nil pointer like a missing block, so the
// codec's type switches never see a pointer and never panic on one.
func blockValue(c pi.Content) pi.Content {
	switch b := c.(type) {
	case *pi.TextContent:
		if b != nil {
			return *b
		}
	case *pi.ThinkingContent:
		if b != nil {
			return *b
		}
	case *pi.ToolCall:
		if b != nil {
			return *b
		}
	case *pi.ImageContent:
		if b != nil {
			return *b
		}
	default:
		return c
	}
	return nil
}
