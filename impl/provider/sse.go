package provider

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// SSEEvent is one dispatched server-sent event.
type SSEEvent struct {
	Event string // the "event:" field, "" when absent
	Data  string // "data:" lines joined by "\n"
}

// errStopSSE lets a handler end the scan early without an error.
var errStopSSE = errors.New("provider: stop sse scan")

// ScanSSE reads an SSE byte stream and calls fn for each complete event, in
// order. It follows the WHATWG event-stream rules: lines end in CR, LF or
// CRLF (a CRLF split across reads still counts once); lines starting with
// ':' are comments; an empty line dispatches the pending event; an event
// without data lines is dropped; a final event without its blank line is
// incomplete and is not dispatched. It reports whether the stream ended on
// an event boundary (clean) and the first read error other than io.EOF.
func ScanSSE(r io.Reader, fn func(SSEEvent) error) (clean bool, err error) {
	br := bufio.NewReader(r)
	var line []byte
	var event string
	var data [][]byte
	hasData := false
	pendingCR := false // last byte was CR: a following LF belongs to it
	inLine := false    // bytes read since the last line end
	dispatch := func() error {
		if !hasData {
			event = ""
			return nil
		}
		ev := SSEEvent{Event: event, Data: string(bytes.Join(data, []byte("\n")))}
		event, data, hasData = "", data[:0], false
		return fn(ev)
	}
	processLine := func(l []byte) error {
		if len(l) == 0 {
			return dispatch()
		}
		if l[0] == ':' {
			return nil
		}
		field, value := l, []byte(nil)
		if i := bytes.IndexByte(l, ':'); i >= 0 {
			field, value = l[:i], l[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			event = string(value)
		case "data":
			data = append(data, append([]byte(nil), value...))
			hasData = true
		}
		return nil
	}
	for {
		c, rerr := br.ReadByte()
		if rerr != nil {
			if rerr == io.EOF {
				// Clean only when no partial line and no undispatched event.
				return !inLine && !hasData && event == "", nil
			}
			return false, fmt.Errorf("provider: read sse: %w", rerr)
		}
		if pendingCR {
			pendingCR = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\r', '\n':
			pendingCR = c == '\r'
			l := line
			line = line[:0]
			inLine = false
			if err := processLine(l); err != nil {
				if err == errStopSSE {
					return true, nil
				}
				return false, err
			}
		default:
			line = append(line, c)
			inLine = true
		}
	}
}
