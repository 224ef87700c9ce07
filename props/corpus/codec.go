package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// CodecSchema is the version of the codec vector format below.
const CodecSchema = 1

// Codec ops a vector can exercise; they are the frameproof stdio protocol v1
// ops of the same names.
const (
	OpEncode = "encode"
	OpReduce = "reduce"
	OpParse  = "parse"
)

// CodecOps lists the ops in the order they are run and reported.
var CodecOps = []string{OpEncode, OpReduce, OpParse}

// CodecVector is one line of a corpus/vectors/codec/*.jsonl file:
//
//	{"schema":1,"name":"encode/valid-0","op":"encode","source":"...","events":[...],"expect":{"frames":[...]}}
//	{"schema":1,"name":"reduce/...","op":"reduce","source":"...","frames":[...],"expect":{"message":{...}|null}}
//	{"schema":1,"name":"parse/...","op":"parse","source":"...","input":"...","expect":{"result":...}}
//
// Inputs and expected outputs are raw JSON kept byte for byte: expected
// frames, messages and results are the exact JSON.stringify bytes pi-ai 1.0.3
// printed, and implementations must reproduce them exactly.
type CodecVector struct {
	Schema int    `json:"schema"`
	Name   string `json:"name"`
	Op     string `json:"op"`
	Source string `json:"source"` // how the vector was made (generator and seed, or "hand-picked: why")
	// Events (encode): each event carries its own partial.
	Events []json.RawMessage `json:"events,omitempty"`
	// Frames (reduce): the frame sequence to reduce.
	Frames []json.RawMessage `json:"frames,omitempty"`
	// Input (parse): a JSON string literal (lone surrogates as \udXXX escapes).
	Input  json.RawMessage `json:"input,omitempty"`
	Expect CodecExpect     `json:"expect"`

	File string `json:"-"` // file the vector was read from (base name)
	Line int    `json:"-"` // 1-based line in File
}

// CodecExpect is a vector's expected outcome.
type CodecExpect struct {
	// Frames (encode): one entry per event before the error (all events when
	// there is none); null where the encoder returned no frame.
	Frames []json.RawMessage `json:"frames,omitempty"`
	// Message (reduce): the reduced message, or null without a start frame.
	Message json.RawMessage `json:"message,omitempty"`
	// Result (parse): parseStreamingJson's value.
	Result json.RawMessage `json:"result,omitempty"`
	// Error: what pi threw; Index (encode only) is the event that threw.
	Error *CodecError `json:"error,omitempty"`
}

// CodecError is an error pi threw, with its exact message.
type CodecError struct {
	Index   *int   `json:"index,omitempty"`
	Message string `json:"message"`
}

// Where names the vector's position for error messages.
func (v CodecVector) Where() string { return fmt.Sprintf("%s:%d (%s)", v.File, v.Line, v.Name) }

// validate checks a decoded vector's shape.
func (v CodecVector) validate() error {
	if v.Schema != CodecSchema {
		return fmt.Errorf("schema %d, want %d", v.Schema, CodecSchema)
	}
	if v.Name == "" {
		return errors.New("name is empty")
	}
	e := v.Expect
	switch v.Op {
	case OpEncode:
		if v.Events == nil || v.Frames != nil || v.Input != nil {
			return errors.New("encode vector needs events and nothing else")
		}
		if e.Message != nil || e.Result != nil {
			return errors.New("encode vector expects frames (and an error), not message/result")
		}
		if e.Error != nil && (e.Error.Index == nil || *e.Error.Index != len(e.Frames) || *e.Error.Index >= len(v.Events)) {
			return errors.New("encode error index must equal the number of expected frames and point at an event")
		}
		if e.Error == nil && len(e.Frames) != len(v.Events) {
			return fmt.Errorf("%d expected frames for %d events", len(e.Frames), len(v.Events))
		}
	case OpReduce:
		if v.Frames == nil || v.Events != nil || v.Input != nil {
			return errors.New("reduce vector needs frames and nothing else")
		}
		if (e.Message == nil) == (e.Error == nil) || e.Frames != nil || e.Result != nil {
			return errors.New("reduce vector expects exactly one of message or error")
		}
		if e.Error != nil && e.Error.Index != nil {
			return errors.New("reduce error has no index")
		}
	case OpParse:
		if v.Input == nil || v.Events != nil || v.Frames != nil {
			return errors.New("parse vector needs input and nothing else")
		}
		if e.Result == nil || e.Error != nil || e.Frames != nil || e.Message != nil {
			return errors.New("parse vector expects a result only")
		}
		if s, err := pi.ParseJSON(string(v.Input)); err != nil || s.Kind() != pi.String {
			return errors.New("parse input must be a JSON string literal")
		}
	default:
		return fmt.Errorf("unknown op %q", v.Op)
	}
	return nil
}

// LoadCodec reads every *.jsonl file in dir (sorted by name), one vector a
// line. Names must be unique across files.
func LoadCodec(dir string) ([]CodecVector, error) {
	files, err := codecFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []CodecVector
	seen := map[string]string{}
	for _, f := range files {
		vs, err := readCodecFile(f)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if prev, dup := seen[v.Name]; dup {
				return nil, fmt.Errorf("corpus: %s: duplicate vector name (also at %s)", v.Where(), prev)
			}
			seen[v.Name] = v.Where()
		}
		out = append(out, vs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus: no codec vectors in %s", dir)
	}
	return out, nil
}

func codecFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("corpus: list %s: %w", dir, err)
	}
	sort.Strings(files)
	return files, nil
}

func readCodecFile(path string) ([]CodecVector, error) {
	data, err := readCorpusFile(path)
	if err != nil {
		return nil, err
	}
	return ReadCodec(bytes.NewReader(data), filepath.Base(path))
}

// ReadCodec decodes vectors from r, one per non-blank line; name labels
// errors and CodecVector.File.
func ReadCodec(r io.Reader, name string) ([]CodecVector, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out []CodecVector
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var v CodecVector
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.DisallowUnknownFields()
			if derr := dec.Decode(&v); derr != nil {
				return nil, fmt.Errorf("corpus: %s:%d: %w", name, n, derr)
			}
			v.File, v.Line = name, n
			if verr := v.validate(); verr != nil {
				return nil, fmt.Errorf("corpus: %s: %w", v.Where(), verr)
			}
			out = append(out, v)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("corpus: %s:%d: %w", name, n, err)
		}
	}
}

// AppendCodecVector writes v as one compact line (with the trailing
// newline). Raw members are copied byte for byte, so a vector written here
// and read back by ReadCodec compares equal byte for byte.
func AppendCodecVector(dst []byte, v CodecVector) []byte {
	dst = append(dst, `{"schema":`...)
	dst = strconv.AppendInt(dst, int64(v.Schema), 10)
	dst = append(dst, `,"name":`...)
	dst = pi.AppendQuote(dst, v.Name)
	dst = append(dst, `,"op":`...)
	dst = pi.AppendQuote(dst, v.Op)
	dst = append(dst, `,"source":`...)
	dst = pi.AppendQuote(dst, v.Source)
	switch v.Op {
	case OpEncode:
		dst = appendRawArray(append(dst, `,"events":`...), v.Events)
	case OpReduce:
		dst = appendRawArray(append(dst, `,"frames":`...), v.Frames)
	case OpParse:
		dst = append(append(dst, `,"input":`...), v.Input...)
	}
	dst = append(dst, `,"expect":{`...)
	sep := ""
	field := func(name string) {
		dst = append(dst, sep...)
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, `":`...)
		sep = ","
	}
	e := v.Expect
	if v.Op == OpEncode {
		field("frames")
		dst = appendRawArray(dst, e.Frames)
	}
	if e.Message != nil {
		field("message")
		dst = append(dst, e.Message...)
	}
	if e.Result != nil {
		field("result")
		dst = append(dst, e.Result...)
	}
	if e.Error != nil {
		field("error")
		dst = append(dst, '{')
		if e.Error.Index != nil {
			dst = append(dst, `"index":`...)
			dst = strconv.AppendInt(dst, int64(*e.Error.Index), 10)
			dst = append(dst, ',')
		}
		dst = append(dst, `"message":`...)
		dst = pi.AppendQuote(dst, e.Error.Message)
		dst = append(dst, '}')
	}
	return append(dst, "}}\n"...)
}

func appendRawArray(dst []byte, items []json.RawMessage) []byte {
	dst = append(dst, '[')
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, it...)
	}
	return append(dst, ']')
}

// CodecVersion identifies a codec corpus: the schema plus the first 16 hex
// digits of a SHA-256 over every vector file's name and bytes, in name order.
// Two runs that report the same version ran the same vectors.
func CodecVersion(dir string) (string, error) {
	files, err := codecFiles(dir)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		data, err := readCorpusFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(f), len(data))
		h.Write(data)
	}
	return "codec/" + strconv.Itoa(CodecSchema) + "+sha256:" + hex.EncodeToString(h.Sum(nil))[:16], nil
}

// CountByOp returns how many vectors each op has.
func CountByOp(vs []CodecVector) map[string]int {
	m := map[string]int{}
	for _, v := range vs {
		m[v.Op]++
	}
	return m
}

// FilterOps keeps the vectors whose op is in ops (all when ops is empty).
func FilterOps(vs []CodecVector, ops []string) []CodecVector {
	if len(ops) == 0 {
		return vs
	}
	keep := map[string]bool{}
	for _, o := range ops {
		keep[strings.TrimSpace(o)] = true
	}
	var out []CodecVector
	for _, v := range vs {
		if keep[v.Op] {
			out = append(out, v)
		}
	}
	return out
}
