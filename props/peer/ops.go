package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// envelope holds the fields every response may carry. Payload fields in the
// op responses are json.RawMessage so the peer's bytes are kept verbatim
// (encoding/json copies a RawMessage's bytes as they appear, and a JSON null
// becomes "null").
type envelope struct {
	ID            json.RawMessage `json:"id"`
	ProtocolError *string         `json:"protocolError"`
	Error         *piError        `json:"error"`
}

func (e *envelope) head() *envelope { return e }

// reply is any op response; call checks its envelope.
type reply interface{ head() *envelope }

type encodeResponse struct {
	envelope
	Frames []json.RawMessage `json:"frames"`
}

type reduceResponse struct {
	envelope
	Message json.RawMessage `json:"message"`
}

type parseResponse struct {
	envelope
	Results []json.RawMessage `json:"results"`
}

type benchResponse struct {
	envelope
	NsPerEvent    *float64 `json:"nsPerEvent"`
	CPUNsPerEvent *float64 `json:"cpuNsPerEvent"`
}

type reduceBenchResponse struct {
	envelope
	NsPerFrame    *float64 `json:"nsPerFrame"`
	CPUNsPerFrame *float64 `json:"cpuNsPerFrame"`
	MBPerSec      *float64 `json:"mbPerSec"`
}

// BenchTimes is a peer's own measurement of a bench request, per event or
// frame: Wall from process.hrtime around the timed loop, CPU from
// process.cpuUsage (user + system time of all the peer's threads, its
// garbage collector included). On a shared machine CPU is what the work
// cost; Wall also counts time other processes held the CPU.
type BenchTimes struct {
	Wall, CPU float64
}

// piError is an error thrown by the implementation (pi-ai's message).
type piError struct {
	Index   *int   `json:"index"`
	Message string `json:"message"`
}

// Encode runs one fresh encoder over events; each event carries its own
// partial (the partial as the encoder read it). frames[i] is the frame for
// events[i], "null" when the encoder returned none. When the encoder throws at
// event i, frames holds the frames before i, errIndex is i and errMsg the
// thrown message; otherwise errIndex is -1. err is for transport and protocol
// failures only.
func (p *Peer) Encode(events []json.RawMessage) (frames []json.RawMessage, errIndex int, errMsg string, err error) {
	var r encodeResponse
	if err := p.call("encode", rawArrayField("events", events), &r); err != nil {
		return nil, -1, "", err
	}
	if r.Frames == nil {
		return nil, -1, "", fmt.Errorf("peer: encode: response has no frames array")
	}
	if r.Error != nil {
		if r.Error.Index == nil || *r.Error.Index != len(r.Frames) || *r.Error.Index >= len(events) {
			return nil, -1, "", fmt.Errorf("peer: encode: error index %s does not follow the %d frames returned for %d events",
				optInt(r.Error.Index), len(r.Frames), len(events))
		}
		return r.Frames, *r.Error.Index, r.Error.Message, nil
	}
	if len(r.Frames) != len(events) {
		return nil, -1, "", fmt.Errorf("peer: encode: %d frames for %d events", len(r.Frames), len(events))
	}
	return r.Frames, -1, "", nil
}

// Reduce replays frames into a message. msg is "null" when the frames hold
// no start frame. errMsg is the implementation's thrown message, if any.
func (p *Peer) Reduce(frames []json.RawMessage) (msg json.RawMessage, errMsg string, err error) {
	var r reduceResponse
	if err := p.call("reduce", rawArrayField("frames", frames), &r); err != nil {
		return nil, "", err
	}
	if r.Error != nil {
		return nil, r.Error.Message, nil
	}
	if r.Message == nil {
		return nil, "", errors.New("peer: reduce: response has neither message nor error")
	}
	return r.Message, "", nil
}

// ParseStreamingJSON runs parseStreamingJson on each input. Each input is a
// JSON string literal, encoded by the caller (so lone surrogates can travel as
// \udXXX escapes); results[i] is the JSON the implementation printed.
func (p *Peer) ParseStreamingJSON(inputs []json.RawMessage) ([]json.RawMessage, error) {
	var r parseResponse
	if err := p.call("parse", rawArrayField("inputs", inputs), &r); err != nil {
		return nil, err
	}
	if len(r.Results) != len(inputs) {
		return nil, fmt.Errorf("peer: parse: %d results for %d inputs", len(r.Results), len(inputs))
	}
	return r.Results, nil
}

// BenchEncode encodes the stream iterations times, each with a fresh encoder,
// and returns the peer's own measurement in nanoseconds per event.
func (p *Peer) BenchEncode(events []json.RawMessage, iterations int) (nsPerEvent float64, err error) {
	t, err := p.BenchEncodeTimes(events, iterations, false)
	return t.Wall, err
}

// BenchEncodeTimes is BenchEncode returning wall and CPU time. With
// stringify every frame is also serialized with JSON.stringify inside the
// timed loop: the cost of encoding a frame and writing it, which is what a
// durable frame log pays per event.
func (p *Peer) BenchEncodeTimes(events []json.RawMessage, iterations int, stringify bool) (BenchTimes, error) {
	body := benchBody("events", events, iterations)
	if stringify {
		inner := body
		body = func(b *bytes.Buffer) error {
			if err := inner(b); err != nil {
				return err
			}
			b.WriteString(`,"stringify":true`)
			return nil
		}
	}
	var r benchResponse
	if err := p.call("bench", body, &r); err != nil {
		return BenchTimes{}, err
	}
	if r.Error != nil {
		return BenchTimes{}, fmt.Errorf("peer: bench: encode threw at event %s: %s", optInt(r.Error.Index), r.Error.Message)
	}
	if r.NsPerEvent == nil || r.CPUNsPerEvent == nil {
		return BenchTimes{}, errors.New("peer: bench: response has no nsPerEvent/cpuNsPerEvent")
	}
	return BenchTimes{Wall: *r.NsPerEvent, CPU: *r.CPUNsPerEvent}, nil
}

// BenchReduce reduces frames iterations times and returns nanoseconds per
// frame and throughput in MB/s of the frames' JSONL bytes.
func (p *Peer) BenchReduce(frames []json.RawMessage, iterations int) (nsPerFrame, mbPerSec float64, err error) {
	t, mbPerSec, err := p.BenchReduceTimes(frames, iterations)
	return t.Wall, mbPerSec, err
}

// BenchReduceTimes is BenchReduce returning wall and CPU time per frame.
func (p *Peer) BenchReduceTimes(frames []json.RawMessage, iterations int) (t BenchTimes, mbPerSec float64, err error) {
	return p.benchReduce(benchBody("frames", frames, iterations))
}

// BenchReduceStoredTimes is BenchReduceTimes from the stored bytes to the
// message's bytes: each pass JSON.parses every frame's JSON.stringify line,
// reduces, and JSON.stringifies the message.
func (p *Peer) BenchReduceStoredTimes(frames []json.RawMessage, iterations int) (t BenchTimes, mbPerSec float64, err error) {
	body := benchBody("frames", frames, iterations)
	return p.benchReduce(func(b *bytes.Buffer) error {
		if err := body(b); err != nil {
			return err
		}
		b.WriteString(`,"stored":true`)
		return nil
	})
}

func (p *Peer) benchReduce(body func(*bytes.Buffer) error) (t BenchTimes, mbPerSec float64, err error) {
	var r reduceBenchResponse
	if err := p.call("reduceBench", body, &r); err != nil {
		return BenchTimes{}, 0, err
	}
	if r.Error != nil {
		return BenchTimes{}, 0, fmt.Errorf("peer: reduceBench: reduce threw: %s", r.Error.Message)
	}
	if r.NsPerFrame == nil || r.CPUNsPerFrame == nil || r.MBPerSec == nil {
		return BenchTimes{}, 0, errors.New("peer: reduceBench: response has no nsPerFrame/cpuNsPerFrame/mbPerSec")
	}
	return BenchTimes{Wall: *r.NsPerFrame, CPU: *r.CPUNsPerFrame}, *r.MBPerSec, nil
}

func benchBody(field string, items []json.RawMessage, iterations int) func(*bytes.Buffer) error {
	array := rawArrayField(field, items)
	return func(b *bytes.Buffer) error {
		if iterations < 1 {
			return fmt.Errorf("iterations %d: must be at least 1", iterations)
		}
		if err := array(b); err != nil {
			return err
		}
		b.WriteString(`,"iterations":`)
		b.WriteString(strconv.Itoa(iterations))
		return nil
	}
}

// rawArrayField writes `,"field":[item,...]` with the caller's bytes kept
// verbatim: no HTML escaping, no UTF-8 repair, no re-encoding. Only an item
// spanning lines (pretty-printed) is compacted, since a request is one line;
// json.Compact drops whitespace between tokens and leaves strings untouched.
func rawArrayField(field string, items []json.RawMessage) func(*bytes.Buffer) error {
	return func(b *bytes.Buffer) error {
		b.WriteString(`,"`)
		b.WriteString(field)
		b.WriteString(`":[`)
		for i, item := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			if !json.Valid(item) {
				return fmt.Errorf("%s[%d]: not valid JSON: %q", field, i, truncate(item))
			}
			if bytes.ContainsAny(item, "\r\n") {
				if err := json.Compact(b, item); err != nil {
					return fmt.Errorf("%s[%d]: %w", field, i, err)
				}
				continue
			}
			b.Write(item)
		}
		b.WriteByte(']')
		return nil
	}
}

func optInt(p *int) string {
	if p == nil {
		return "(none)"
	}
	return strconv.Itoa(*p)
}
