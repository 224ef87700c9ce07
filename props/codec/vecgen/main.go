// Command vecgen regenerates corpus/vectors/codec: codec vectors drawn from
// props/codec's stream generators (fixed seeds) plus hand-picked edge cases,
// with every expected output recorded from pi-ai 1.0.3 through the
// frameproof stdio protocol (props/peer). The peer is the authority; vecgen
// only reports, never records, what impl/frames says.
//
//	npm ci --prefix corpus/peers/pi-ai
//	go run ./props/codec/vecgen            # from the module root
//
// Output is deterministic: the same pi-ai and generators give the same
// bytes. The files are committed; props/corpus tests run them against
// impl/frames on every `go test`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/props/corpus"
	"github.com/frameproof/frameproof/props/peer"
)

func main() {
	root, err := corpus.Root()
	if err != nil {
		fail(err)
	}
	out := flag.String("out", corpus.CodecDir(root), "directory to (re)write *.jsonl vectors into")
	flag.Parse()
	p, err := peer.Start()
	if err != nil {
		fail(err)
	}
	defer p.Close()
	g := &gen{p: p, files: map[string][]corpus.CodecVector{}}
	g.all()
	if err := g.write(*out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vecgen:", err)
	os.Exit(1)
}

// gen records vectors per output file.
type gen struct {
	p     *peer.Peer
	files map[string][]corpus.CodecVector
	// goDiffers counts vectors on which impl/frames disagrees with pi-ai
	// (reported on stderr as findings; the vectors keep pi-ai's output).
	goDiffers int
}

func (g *gen) all() {
	g.generatedEncode()
	g.edgeEncode()
	g.generatedReduce()
	g.edgeReduce()
	g.parse()
}

func (g *gen) add(file string, v corpus.CodecVector) {
	v.Schema = corpus.CodecSchema
	if verdict, err := corpus.CheckCodec(corpus.GoCodec{}, v); err != nil || !verdict.Pass {
		g.goDiffers++
		fmt.Fprintf(os.Stderr, "vecgen: impl/frames differs from pi-ai on %s: %v%s\n", v.Name, err, verdict.Diff)
	}
	g.files[file] = append(g.files[file], v)
}

// encodeVector asks the peer for the frames of events.
func (g *gen) encodeVector(name, source string, events []json.RawMessage) corpus.CodecVector {
	frames, errIndex, errMsg, err := g.p.Encode(events)
	if err != nil {
		fail(fmt.Errorf("%s: %w", name, err))
	}
	v := corpus.CodecVector{Name: name, Op: corpus.OpEncode, Source: source, Events: events,
		Expect: corpus.CodecExpect{Frames: frames}}
	if v.Expect.Frames == nil {
		v.Expect.Frames = []json.RawMessage{}
	}
	if errIndex >= 0 {
		i := errIndex
		v.Expect.Error = &corpus.CodecError{Index: &i, Message: errMsg}
	}
	return v
}

func (g *gen) reduceVector(name, source string, frames []json.RawMessage) corpus.CodecVector {
	if frames == nil {
		frames = []json.RawMessage{}
	}
	msg, errMsg, err := g.p.Reduce(frames)
	if err != nil {
		fail(fmt.Errorf("%s: %w", name, err))
	}
	v := corpus.CodecVector{Name: name, Op: corpus.OpReduce, Source: source, Frames: frames}
	if errMsg != "" {
		v.Expect.Error = &corpus.CodecError{Message: errMsg}
	} else {
		v.Expect.Message = msg
	}
	return v
}

func (g *gen) parseVector(name, source, input string) corpus.CodecVector {
	lit := json.RawMessage(pi.QuoteJSON(pi.Normalize(input)))
	res, err := g.p.ParseStreamingJSON([]json.RawMessage{lit})
	if err != nil {
		fail(fmt.Errorf("%s: %w", name, err))
	}
	return corpus.CodecVector{Name: name, Op: corpus.OpParse, Source: source, Input: lit,
		Expect: corpus.CodecExpect{Result: res[0]}}
}

func rawEvents(evs []*pi.Event) []json.RawMessage {
	out := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		out[i] = e.AppendJSON(nil)
	}
	return out
}

func (g *gen) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(g.files))
	for n := range g.files {
		names = append(names, n)
	}
	sort.Strings(names)
	total := 0
	for _, n := range names {
		var buf []byte
		for _, v := range g.files[n] {
			buf = corpus.AppendCodecVector(buf, v)
		}
		if err := os.WriteFile(filepath.Join(dir, n), buf, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "vecgen: %-28s %4d vectors %8d bytes\n", n, len(g.files[n]), len(buf))
		total += len(g.files[n])
	}
	fmt.Fprintf(os.Stderr, "vecgen: %d vectors, %d where impl/frames differs from pi-ai\n", total, g.goDiffers)
	return nil
}
