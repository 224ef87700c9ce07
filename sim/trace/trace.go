// Package trace is the canonical step log of a simulation run.
//
// Every record is one JSON object on its own line (JSONL), encoded by hand
// with a fixed key order, so the same run produces the same bytes and Hash
// (sha256 of those bytes) is a fingerprint of the whole schedule. Campaigns
// compare hashes to detect nondeterminism; failure reports ship the JSONL.
//
// Line format (keys always in this order; kv omitted when empty):
//
//	{"step":12,"t":1500000,"proc":"lane@2","actor":"committer#7","act":"wait","kv":{"future":"commit#3"}}
//
// step is the scheduler step the record belongs to, t the virtual time in
// nanoseconds since the world's epoch, proc/actor who acted ("" for the
// scheduler or the test goroutine), act a short verb and kv optional details
// in the order given.
package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"strconv"
	"unicode/utf8"
)

// Field is one detail of a record. V may be a string, bool, any integer
// type, error, fmt.Stringer, nil, or anything encoding/json encodes
// deterministically (maps are encoded with sorted keys).
type Field struct {
	K string
	V any
	// s and i hold the value of a field built by S or I, which is written
	// as V would be with that string or int64 in it, without boxing it
	// (an allocation per detail of every scheduler record)
	s    string
	i    int64
	kind fieldKind
}

type fieldKind uint8

const (
	fieldAny fieldKind = iota
	fieldString
	fieldInt
	fieldSeqName
)

// F builds a Field.
func F(k string, v any) Field { return Field{K: k, V: v} }

// S builds a Field of a string: the same record as F(k, v).
func S(k, v string) Field { return Field{K: k, s: v, kind: fieldString} }

// I builds a Field of an int64: the same record as F(k, v).
func I(k string, v int64) Field { return Field{K: k, i: v, kind: fieldInt} }

// SN builds a Field of the string s + "#" + n in decimal without making
// that string: the same record as S(k, s+"#"+strconv.FormatInt(n, 10)).
func SN(k, s string, n int64) Field { return Field{K: k, s: s, i: n, kind: fieldSeqName} }

// Record is one decoded trace line.
type Record struct {
	Step  int64           `json:"step"`
	T     int64           `json:"t"`
	Proc  string          `json:"proc"`
	Actor string          `json:"actor"`
	Act   string          `json:"act"`
	KV    json.RawMessage `json:"kv,omitempty"`
}

// Trace accumulates records. The zero value is not usable; call New.
type Trace struct {
	keep  bool
	buf   bytes.Buffer
	h     hash.Hash
	n     int
	bytes int64
	// pend holds lines not hashed yet: the hash takes them a few
	// kilobytes at a time (Hash hashes the rest), which costs less than a
	// call per line and hashes the same bytes
	pend []byte
}

// hashChunk is how many pending bytes make the hash take them.
const hashChunk = 8 << 10

// New returns a trace that keeps every line in memory (for WriteJSONL) and
// hashes it.
func New() *Trace { return &Trace{keep: true, h: sha256.New(), pend: newPend()} }

// NewHashOnly returns a trace that only hashes; WriteJSONL then fails. Use it
// for campaign runs, and re-run a failing seed with New to get the JSONL.
func NewHashOnly() *Trace { return &Trace{h: sha256.New(), pend: newPend()} }

// newPend is the pending lines' buffer, made once at the size they reach
// before the hash takes them (a chunk and a line or so), rather than grown
// by doubling in every run.
func newPend() []byte { return make([]byte, 0, hashChunk+hashChunk/2) }

// Add appends one record.
func (t *Trace) Add(step, at int64, proc, actor, act string, kv ...Field) {
	start := len(t.pend)
	b := appendHead(t.pend, step, at)
	b = append(b, `,"proc":`...)
	b = appendString(b, proc)
	b = append(b, `,"actor":`...)
	b = appendString(b, actor)
	b = append(b, `,"act":`...)
	t.finish(b, start, act, kv)
}

// Who is a record's proc and actor, written once (NewWhoSN) for an actor
// that adds many records.
type Who struct{ frag string }

// NewWhoSN is proc and actor+"#"+n (n in decimal) as Add writes them,
// without making that string (as SN), written into a stack buffer (the
// usual labels fit) so that the fragment's string is its one allocation.
func NewWhoSN(proc, actor string, n int64) Who {
	var buf [128]byte
	b := append(buf[:0], `,"proc":`...)
	b = appendString(b, proc)
	b = append(b, `,"actor":`...)
	b = appendSeqName(b, actor, n)
	b = append(b, `,"act":`...)
	return Who{frag: string(b)}
}

// AddWho appends one record: the same line as Add with who's proc and
// actor.
func (t *Trace) AddWho(step, at int64, who Who, act string, kv ...Field) {
	start := len(t.pend)
	b := appendHead(t.pend, step, at)
	b = append(b, who.frag...)
	t.finish(b, start, act, kv)
}

// appendHead writes a record's step and time.
func appendHead(b []byte, step, at int64) []byte {
	b = append(b, `{"step":`...)
	b = strconv.AppendInt(b, step, 10)
	b = append(b, `,"t":`...)
	return strconv.AppendInt(b, at, 10)
}

// finish writes the record's act and details after its head and who (the
// line began at start of b) and adds the line.
func (t *Trace) finish(b []byte, start int, act string, kv []Field) {
	b = appendString(b, act)
	if len(kv) > 0 {
		b = append(b, `,"kv":{`...)
		for i, f := range kv {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.K)
			b = append(b, ':')
			switch f.kind {
			case fieldString:
				b = appendString(b, f.s)
			case fieldInt:
				b = strconv.AppendInt(b, f.i, 10)
			case fieldSeqName:
				b = appendSeqName(b, f.s, f.i)
			default:
				b = appendValue(b, f.V)
			}
		}
		b = append(b, '}')
	}
	b = append(b, '}', '\n')
	line := b[start:]
	if t.keep {
		t.buf.Write(line)
	}
	t.n++
	t.bytes += int64(len(line))
	if len(b) >= hashChunk {
		t.h.Write(b)
		b = b[:0]
	}
	t.pend = b
}

// Len returns the number of records added.
func (t *Trace) Len() int { return t.n }

// Size returns the number of JSONL bytes added.
func (t *Trace) Size() int64 { return t.bytes }

// Hash returns the hex sha256 of the JSONL bytes added so far.
func (t *Trace) Hash() string {
	t.h.Write(t.pend)
	t.pend = t.pend[:0]
	return hex.EncodeToString(t.h.Sum(nil))
}

// WriteJSONL writes the trace as JSON lines.
func (t *Trace) WriteJSONL(w io.Writer) error {
	if !t.keep {
		return fmt.Errorf("trace: write JSONL: trace was created hash-only (NewHashOnly)")
	}
	_, err := w.Write(t.buf.Bytes())
	return err
}

// Records decodes the kept lines. It fails on a hash-only trace.
func (t *Trace) Records() ([]Record, error) {
	if !t.keep {
		return nil, fmt.Errorf("trace: records: trace was created hash-only (NewHashOnly)")
	}
	return ParseJSONL(t.buf.Bytes())
}

// ParseJSONL decodes JSONL trace bytes; errors name the 1-based line.
func ParseJSONL(data []byte) ([]Record, error) {
	var out []Record
	line := 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		var l []byte
		if i < 0 {
			l, data = data, nil
		} else {
			l, data = data[:i], data[i+1:]
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var r Record
		if err := json.Unmarshal(l, &r); err != nil {
			return nil, fmt.Errorf("trace: parse line %d: %w", line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int8:
		return strconv.AppendInt(b, int64(x), 10)
	case int16:
		return strconv.AppendInt(b, int64(x), 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case uint:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint64:
		return strconv.AppendUint(b, x, 10)
	case []string:
		if out, ok := appendPlainStrings(b, x); ok {
			return out
		}
	case *[]string:
		if x != nil { // the slice's record, as encoding/json writes it
			return appendValue(b, *x)
		}
	case error:
		return appendString(b, x.Error())
	case fmt.Stringer:
		return appendString(b, x.String())
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return appendString(b, fmt.Sprintf("!unencodable %T: %v", v, err))
	}
	return append(b, enc...)
}

// appendPlainStrings appends ss as encoding/json does, when every string is
// plain: printable ASCII without the quote, the backslash or the characters
// json escapes for HTML (<, >, &), which it copies as they are. It reports
// false, having appended nothing, otherwise. A scheduler step that wakes
// sleepers records their names so.
func appendPlainStrings(b []byte, ss []string) ([]byte, bool) {
	for _, s := range ss {
		for i := 0; i < len(s); i++ {
			if c := s[i]; !plainByte[c] || c == '<' || c == '>' || c == '&' {
				return b, false
			}
		}
	}
	if ss == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, s...)
		b = append(b, '"')
	}
	return append(b, ']'), true
}

const hexDigits = "0123456789abcdef"

// plainByte marks the bytes appendString copies as they are: printable
// ASCII but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// loadWord reads the first 8 bytes of w, little-endian.
func loadWord(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainWord reports whether the 8 bytes of x are all plainByte: ASCII, not
// a control character, not '"' and not '\\', all eight at once (SWAR):
// (v - n*ones) &^ v has a byte's high bit set when that byte of v is below
// n (exact for "any byte", which is all this needs), and a byte equal to c
// is a zero byte of v ^ c*ones.
func plainWord(x uint64) bool {
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	return (x|(x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

// appendSeqName writes s + "#" + n as appendString would: '#' and digits
// are written as they are, and JSON's escapes are per character (an
// invalid byte at the end of s stays invalid before '#'), so it is s's
// string with "#n" before the closing quote.
func appendSeqName(b []byte, s string, n int64) []byte {
	b = appendString(b, s)
	b = append(b[:len(b)-1], '#')
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, valid UTF-8 kept as is, invalid bytes as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	// the plain ASCII head (all of most strings) is copied as it is; it is
	// found 8 bytes at a time, then byte by byte
	i := 0
	for i+8 <= len(s) && plainWord(loadWord(s[i:i+8])) {
		i += 8
	}
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
