package provider

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
	modelframes "github.com/frameproof/frameproof/model/frames"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/google/go-cmp/cmp"
)

// The codec verdicts: the durable frame codec over the adapter's actual
// events.
const (
	// RuleCodecRoundTrip: after every event of the stream's valid prefix,
	// Reduce(frames so far) equals model/frames' observed message.
	RuleCodecRoundTrip = "codec-round-trip"
	// RuleCodecPeerIdentical: pi-ai's encoder gives byte-identical frames
	// (and the same error at the same event) for the same events.
	RuleCodecPeerIdentical = "codec-peer-identical"
)

// FrameEncoder is the encoder under test (impl/frames' Encoder by default;
// tests substitute broken ones to show the verdicts catch them).
type FrameEncoder interface {
	Encode(ev *pi.Event) (*pi.Frame, error)
}

// NewGoEncoder returns impl/frames' encoder.
func NewGoEncoder() FrameEncoder { return frames.NewEncoder() }

func msgJSON(m *pi.AssistantMessage) string {
	if m == nil {
		return "null"
	}
	return string(m.AppendJSON(nil))
}

// CheckCodecRoundTrip encodes events with a fresh encoder from newEnc and,
// after each of the first valid events, requires that reducing the frames so
// far gives the observed message (model/frames.Observer with
// frames.ParseStreamingJSON). Only the prefix before the first contract
// violation is held to the model: the observer states what a reader sees
// of a valid stream, and the contract verdicts already name the break. An
// encoder error inside the valid prefix is a violation.
func CheckCodecRoundTrip(events []*pi.Event, valid int, newEnc func() FrameEncoder) (out []Violation) {
	add := func(i int, format string, args ...any) {
		out = append(out, Violation{Rule: RuleCodecRoundTrip, Event: i, Detail: fmt.Sprintf(format, args...)})
	}
	valid = min(valid, len(events))
	k := 0
	defer func() { // the model's observer assumes a valid stream; never let it take the run down
		if r := recover(); r != nil {
			add(k, "panic while checking event %d: %v", k, r)
		}
	}()
	enc := newEnc()
	obs := modelframes.NewObserver()
	red := frames.NewReducer()
	var all []pi.Frame
	for k = 0; k < valid; k++ {
		ev := events[k]
		f, err := enc.Encode(ev)
		if err != nil {
			add(k, "encoder rejected %s: %v", ev.Type, err)
			return out
		}
		obs.Observe(ev)
		if f != nil {
			all = append(all, *f)
			if err := red.Apply(f); err != nil {
				add(k, "reducer rejected the %s frame: %v", f.Type, err)
				return out
			}
		}
		got, err := red.Message()
		if err != nil {
			add(k, "reduce after %s: %v", ev.Type, err)
			return out
		}
		if g, w := msgJSON(got), msgJSON(obs.Message()); g != w {
			add(k, "after %s, Reduce(frames) differs from the observed message (-observed +reduced):\n%s", ev.Type, cmp.Diff(w, g))
			return out
		}
	}
	if len(all) > 0 {
		batch, err := frames.Reduce(all)
		last, _ := red.Message()
		if err != nil || msgJSON(batch) != msgJSON(last) {
			add(valid-1, "batch Reduce differs from the incremental one (err %v)", err)
		}
	}
	return out
}

// EncodeRaw encodes events with enc and returns each event's frame as JSON
// ("null" for none), stopping at the first error (its index and message;
// -1 and "" when none), in peer.Encode's shape.
func EncodeRaw(events []*pi.Event, enc FrameEncoder) (out []json.RawMessage, errIndex int, errMsg string) {
	for i, ev := range events {
		f, err := enc.Encode(ev)
		if err != nil {
			return out, i, err.Error()
		}
		if f == nil {
			out = append(out, json.RawMessage("null"))
			continue
		}
		out = append(out, f.AppendJSON(nil))
	}
	return out, -1, ""
}

// CheckCodecPeer encodes the same events — each marshalled with pi.Marshal,
// partial as it was at emission — through the peer (pi-ai's real
// AssistantMessageFrameEncoder) and with newEnc, and requires identical
// frame bytes, error index and error message. The whole stream is compared,
// valid or not: both encoders must agree on invalid input too.
func CheckCodecPeer(p *peer.Peer, events []*pi.Event, newEnc func() FrameEncoder) ([]Violation, error) {
	raw := make([]json.RawMessage, len(events))
	for i, ev := range events {
		b, err := pi.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("provider: codec peer: marshal event %d: %w", i, err)
		}
		raw[i] = b
	}
	peerFrames, peerErrIndex, peerErrMsg, err := p.Encode(raw)
	if err != nil {
		return nil, fmt.Errorf("provider: codec peer: %w", err)
	}
	goFrames, goErrIndex, goErrMsg := EncodeRaw(events, newEnc())
	return ComparePeerFrames(goFrames, goErrIndex, goErrMsg, peerFrames, peerErrIndex, peerErrMsg), nil
}

// ComparePeerFrames reports the first difference between two encoders'
// outputs as a codec-peer-identical violation.
func ComparePeerFrames(goFrames []json.RawMessage, goErrIndex int, goErrMsg string, peerFrames []json.RawMessage, peerErrIndex int, peerErrMsg string) []Violation {
	v := func(i int, format string, args ...any) []Violation {
		return []Violation{{Rule: RuleCodecPeerIdentical, Event: i, Detail: fmt.Sprintf(format, args...)}}
	}
	for i := 0; i < min(len(goFrames), len(peerFrames)); i++ {
		if string(goFrames[i]) != string(peerFrames[i]) {
			return v(i, "frame differs:\n  go:    %s\n  pi-ai: %s", goFrames[i], peerFrames[i])
		}
	}
	if goErrIndex != peerErrIndex || goErrMsg != peerErrMsg {
		return v(max(goErrIndex, peerErrIndex), "encoder error differs: go %d %q, pi-ai %d %q", goErrIndex, goErrMsg, peerErrIndex, peerErrMsg)
	}
	if len(goFrames) != len(peerFrames) {
		return v(min(len(goFrames), len(peerFrames)), "go gave %d frames, pi-ai %d", len(goFrames), len(peerFrames))
	}
	return nil
}
