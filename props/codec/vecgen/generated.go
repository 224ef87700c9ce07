package main

import (
	"encoding/json"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/codec"
	"pgregory.net/rapid"
)

// Budgets for the generated families. Streams whose events exceed maxBytes
// are skipped (each event carries a full partial, so size grows with the
// square of the stream length) to keep the committed corpus around a MB.
const (
	validCount   = 50
	longCount    = 6
	invalidCount = 50
	maxBytes     = 40 << 10
	maxLongBytes = 120 << 10
	corruptCount = 40
)

func streamBytes(s codec.Stream) int {
	n := 0
	for _, e := range s.Events {
		n += len(e.AppendJSON(nil))
	}
	return n
}

// pick draws streams from seed 0 upwards, keeping the first want that fit.
func pick(draw func(seed int) codec.Stream, want, limit int) (seeds []int, streams []codec.Stream) {
	for seed := 0; len(streams) < want && seed < want*20; seed++ {
		s := draw(seed)
		if streamBytes(s) > limit {
			continue
		}
		seeds = append(seeds, seed)
		streams = append(streams, s)
	}
	return seeds, streams
}

func (g *gen) generatedEncode() {
	families := []struct {
		file, prefix, gen string
		draw              func(int) codec.Stream
		want, limit       int
	}{
		{"encode-generated.jsonl", "valid", "GenStream", func(s int) codec.Stream { return codec.GenStream().Example(s) }, validCount, maxBytes},
		{"encode-generated.jsonl", "long", "GenLongStream", func(s int) codec.Stream { return codec.GenLongStream().Example(s) }, longCount, maxLongBytes},
		{"encode-invalid.jsonl", "invalid", "GenInvalidStream", func(s int) codec.Stream { return codec.GenInvalidStream().Example(s) }, invalidCount, maxBytes},
	}
	for _, f := range families {
		seeds, streams := pick(f.draw, f.want, f.limit)
		for i, s := range streams {
			name := fmt.Sprintf("encode/%s-seed-%04d", f.prefix, seeds[i])
			src := fmt.Sprintf("props/codec %s().Example(%d)", f.gen, seeds[i])
			v := g.encodeVector(name, src, rawEvents(s.Events))
			if s.WantErr != "" && (v.Expect.Error == nil || v.Expect.Error.Message != s.WantErr) {
				fmt.Printf("vecgen: note: %s: generator expected %q, pi-ai said %+v\n", name, s.WantErr, v.Expect.Error)
			}
			g.add(f.file, v)
		}
	}
}

// generatedReduce records the reduction of pi-ai's own frames for valid
// streams (whole and cut at a random frame, which leaves blocks and tool-call
// JSON open), and of damaged frame sequences.
func (g *gen) generatedReduce() {
	seeds, streams := pick(func(s int) codec.Stream { return codec.GenStream().Example(s) }, 30, maxBytes)
	for i, s := range streams {
		frames := g.peerFrames(s)
		g.add("reduce-generated.jsonl", g.reduceVector(fmt.Sprintf("reduce/valid-seed-%04d", seeds[i]),
			fmt.Sprintf("pi-ai frames of props/codec GenStream().Example(%d)", seeds[i]), frames))
		if len(frames) > 2 {
			cut := 1 + (seeds[i]*7)%(len(frames)-1)
			g.add("reduce-generated.jsonl", g.reduceVector(fmt.Sprintf("reduce/prefix-seed-%04d", seeds[i]),
				fmt.Sprintf("first %d pi-ai frames of props/codec GenStream().Example(%d)", cut, seeds[i]), frames[:cut]))
		}
	}
	for seed := 0; seed < corruptCount; seed++ {
		s := codec.GenStream().Example(1000 + seed)
		if streamBytes(s) > maxBytes {
			continue
		}
		frames := corrupt(g.peerFrames(s), seed)
		g.add("reduce-corrupt.jsonl", g.reduceVector(fmt.Sprintf("reduce/corrupt-seed-%04d", seed),
			fmt.Sprintf("pi-ai frames of props/codec GenStream().Example(%d), damaged by vecgen corrupt(seed %d)", 1000+seed, seed), frames))
	}
}

// peerFrames returns pi-ai's non-null frames for a valid stream.
func (g *gen) peerFrames(s codec.Stream) []json.RawMessage {
	frames, errIndex, errMsg, err := g.p.Encode(rawEvents(s.Events))
	if err != nil || errIndex >= 0 {
		fail(fmt.Errorf("encode of a valid stream: %v %s", err, errMsg))
	}
	var out []json.RawMessage
	for _, f := range frames {
		if string(f) != "null" {
			out = append(out, f)
		}
	}
	return out
}

// corrupt damages a frame list deterministically: drop, duplicate, swap,
// re-index a frame, or swap a start frame's block for another kind.
func corrupt(fs []json.RawMessage, seed int) []json.RawMessage {
	return rapid.Custom(func(t *rapid.T) []json.RawMessage {
		out := append([]json.RawMessage(nil), fs...)
		for n := rapid.IntRange(1, 2).Draw(t, "damage"); n > 0 && len(out) > 0; n-- {
			i := rapid.IntRange(0, len(out)-1).Draw(t, "i")
			switch rapid.IntRange(0, 4).Draw(t, "how") {
			case 0:
				out = append(out[:i:i], out[i+1:]...)
			case 1:
				out = append(out[:i+1:i+1], out[i:]...)
			case 2:
				j := rapid.IntRange(0, len(out)-1).Draw(t, "j")
				out[i], out[j] = out[j], out[i]
			case 3:
				f, err := pi.ParseFrame(string(out[i]))
				if err != nil || f.Type == pi.FrameStart {
					continue
				}
				f.ContentIndex = rapid.SampledFrom([]pi.ContentIndex{pi.Index(0), pi.Index(1), pi.Index(7), pi.Index(-1)}).Draw(t, "idx")
				out[i] = f.AppendJSON(nil)
			default:
				f, err := pi.ParseFrame(string(out[i]))
				if err != nil || f.Block == nil {
					continue
				}
				f.Block = rapid.SampledFrom([]pi.Content{pi.TextContent{Text: "t"}, pi.ThinkingContent{Thinking: "th"},
					pi.ToolCall{ID: "i", Name: "n", Arguments: pi.EmptyObject()}}).Draw(t, "block")
				out[i] = f.AppendJSON(nil)
			}
		}
		return out
	}).Example(seed)
}
