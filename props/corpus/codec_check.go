package corpus

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Codec is an implementation of pi-ai's frame codec as the stdio protocol
// sees it. *peer.Peer (any process speaking the protocol) and GoCodec
// satisfy it. A non-nil err means the call itself failed (transport or
// protocol); pi's own thrown errors travel in errIndex/errMsg.
type Codec interface {
	// Encode runs a fresh encoder over events. On a throw at event i, frames
	// holds the frames before i, errIndex is i and errMsg pi's message;
	// otherwise errIndex is -1.
	Encode(events []json.RawMessage) (frames []json.RawMessage, errIndex int, errMsg string, err error)
	// Reduce returns the reduced message ("null" without a start frame) or
	// pi's thrown message.
	Reduce(frames []json.RawMessage) (msg json.RawMessage, errMsg string, err error)
	// ParseStreamingJSON parses each input (a JSON string literal).
	ParseStreamingJSON(inputs []json.RawMessage) ([]json.RawMessage, error)
}

// Verdict is the outcome of one vector against one implementation.
type Verdict struct {
	Pass bool
	// Diff says briefly where the output first differs (empty on pass).
	Diff string
}

// CheckCodec runs v against c and compares the output byte for byte with
// the vector's expectation. err is non-nil only when c failed to answer.
func CheckCodec(c Codec, v CodecVector) (Verdict, error) {
	switch v.Op {
	case OpEncode:
		frames, errIndex, errMsg, err := c.Encode(v.Events)
		if err != nil {
			return Verdict{}, err
		}
		return compareEncode(v.Expect, frames, errIndex, errMsg), nil
	case OpReduce:
		msg, errMsg, err := c.Reduce(v.Frames)
		if err != nil {
			return Verdict{}, err
		}
		return compareReduce(v.Expect, msg, errMsg), nil
	case OpParse:
		res, err := c.ParseStreamingJSON([]json.RawMessage{v.Input})
		if err != nil {
			return Verdict{}, err
		}
		if len(res) != 1 {
			return Verdict{}, fmt.Errorf("corpus: parse: %d results for 1 input", len(res))
		}
		if d := diffBytes("result", v.Expect.Result, res[0]); d != "" {
			return Verdict{Diff: d}, nil
		}
		return Verdict{Pass: true}, nil
	}
	return Verdict{}, fmt.Errorf("corpus: %s: unknown op %q", v.Where(), v.Op)
}

func compareEncode(e CodecExpect, frames []json.RawMessage, errIndex int, errMsg string) Verdict {
	var diffs []string
	wantIndex, wantMsg := -1, ""
	if e.Error != nil {
		wantIndex, wantMsg = *e.Error.Index, e.Error.Message
	}
	if errIndex != wantIndex || errMsg != wantMsg {
		diffs = append(diffs, fmt.Sprintf("error: want %s, got %s", describeThrow(wantIndex, wantMsg), describeThrow(errIndex, errMsg)))
	}
	for i := 0; i < max(len(frames), len(e.Frames)); i++ {
		switch {
		case i >= len(frames):
			diffs = append(diffs, fmt.Sprintf("frame %d: missing, want %s", i, clip(e.Frames[i], 0)))
		case i >= len(e.Frames):
			diffs = append(diffs, fmt.Sprintf("frame %d: unexpected %s", i, clip(frames[i], 0)))
		default:
			if d := diffBytes(fmt.Sprintf("frame %d", i), e.Frames[i], frames[i]); d != "" {
				diffs = append(diffs, d)
			}
		}
		if len(diffs) >= 3 {
			break
		}
	}
	if len(diffs) == 0 {
		return Verdict{Pass: true}
	}
	return Verdict{Diff: strings.Join(diffs, "\n")}
}

func compareReduce(e CodecExpect, msg json.RawMessage, errMsg string) Verdict {
	wantMsg := ""
	if e.Error != nil {
		wantMsg = e.Error.Message
	}
	if errMsg != wantMsg {
		return Verdict{Diff: fmt.Sprintf("error: want %s, got %s", describeThrow(-1, wantMsg), describeThrow(-1, errMsg))}
	}
	if e.Error != nil {
		return Verdict{Pass: true}
	}
	if d := diffBytes("message", e.Message, msg); d != "" {
		return Verdict{Diff: d}
	}
	return Verdict{Pass: true}
}

func describeThrow(index int, msg string) string {
	switch {
	case msg == "" && index < 0:
		return "no error"
	case index < 0:
		return fmt.Sprintf("%q", msg)
	default:
		return fmt.Sprintf("%q at event %d", msg, index)
	}
}

// diffBytes reports the first differing byte of want and got with a little
// context around it, or "" when they are equal.
func diffBytes(what string, want, got []byte) string {
	if string(want) == string(got) {
		return ""
	}
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return fmt.Sprintf("%s differs at byte %d:\n  want …%s\n  got  …%s", what, i, clip(want, i), clip(got, i))
}

// clip shows up to 80 bytes of b starting a little before at.
func clip(b []byte, at int) string {
	from := max(0, at-20)
	to := min(len(b), from+80)
	s := string(b[from:to])
	if to < len(b) {
		s += "…"
	}
	return s
}
