package jsonl

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// FormatVersion and StorageVersion are pi's JSONL_FORMAT_VERSION and
// JSONL_STORAGE_VERSION.
const (
	FormatVersion  = 4
	StorageVersion = 1
)

// Header is line 1 of a v4 file. Optional fields are nil when absent.
type Header struct {
	ID                      string
	StorageVersion          int64
	CreatedAt               int64 // Unix milliseconds
	Cwd                     string
	ParentSessionID         *string
	LegacyParentSessionPath *string
	NextSeq                 *int64 // high-water mark written by snapshot rewrites

	// fields keeps the header's members in file order (unknown members
	// included) so that a rewrite preserves them as JS's {...header} would.
	fields []store.ObjectField
}

// headerFields returns the members to serialize: the parsed ones, or pi's
// canonical order for a header built in Go.
func (h Header) headerFields() []store.ObjectField {
	if h.fields != nil {
		return h.fields
	}
	str := func(s string) json.RawMessage { return store.AppendJSString(nil, s) }
	num := func(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }
	fs := []store.ObjectField{
		{Key: "v", Value: num(FormatVersion)},
		{Key: "kind", Value: str("header")},
		{Key: "id", Value: str(h.ID)},
		{Key: "storageVersion", Value: num(h.StorageVersion)},
		{Key: "createdAt", Value: num(h.CreatedAt)},
		{Key: "cwd", Value: str(h.Cwd)},
	}
	if h.ParentSessionID != nil {
		fs = append(fs, store.ObjectField{Key: "parentSessionId", Value: str(*h.ParentSessionID)})
	}
	if h.LegacyParentSessionPath != nil {
		fs = append(fs, store.ObjectField{Key: "legacyParentSessionPath", Value: str(*h.LegacyParentSessionPath)})
	}
	if h.NextSeq != nil {
		fs = append(fs, store.ObjectField{Key: "nextSeq", Value: num(*h.NextSeq)})
	}
	return fs
}

// withNextSeq returns h with nextSeq set, in place when present and last
// otherwise (JS {...header, nextSeq}).
func (h Header) withNextSeq(n int64) Header {
	fields := append([]store.ObjectField(nil), h.headerFields()...)
	raw := json.RawMessage(strconv.FormatInt(n, 10))
	found := false
	for i := range fields {
		if fields[i].Key == "nextSeq" {
			fields[i].Value = raw
			found = true
		}
	}
	if !found {
		fields = append(fields, store.ObjectField{Key: "nextSeq", Value: raw})
	}
	h.fields = fields
	h.NextSeq = &n
	return h
}

func (h Header) encode() []byte {
	return encodeObject(nil, h.headerFields())
}

func encodeObject(dst []byte, fields []store.ObjectField) []byte {
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = store.AppendJSString(dst, f.Key)
		dst = append(dst, ':')
		dst = append(dst, f.Value...)
	}
	return append(dst, '}')
}

var (
	errHeaderNotJSON   = errors.New("Invalid JSONL session header: not valid JSON")
	errHeaderUnsupport = errors.New("Unsupported JSONL session header")
	// errLegacyV3 marks a v3 legacy session header (pi's
	// isLegacyV3SessionHeader): not a v4 header, but one open imports.
	errLegacyV3 = errors.New("jsonl: legacy v3 session header")
)

// parseHeader applies pi's parseJsonlSessionHeader: a v4 header
// (isJsonlStorageHeader), else errLegacyV3 for a v3 one
// (isLegacyV3SessionHeader), else pi's refusal.
func parseHeader(line []byte) (Header, error) {
	h, err := parseV4Header(line)
	if errors.Is(err, errHeaderUnsupport) {
		if v, perr := pi.ParseJSON(string(line)); perr == nil && isLegacyV3Header(v) {
			return Header{}, errLegacyV3
		}
	}
	return h, err
}

// parseV4Header applies pi's isJsonlStorageHeader.
func parseV4Header(line []byte) (Header, error) {
	fields, isObject, valid := parseObjectFields(line)
	if !valid {
		return Header{}, errHeaderNotJSON
	}
	if !isObject {
		return Header{}, errHeaderUnsupport
	}
	m := map[string]json.RawMessage{}
	for _, f := range fields {
		m[f.Key] = f.Value
	}
	h := Header{fields: fields}
	var kind string
	var v float64
	ok := decodeStrict(m["kind"], &kind) && kind == "header" &&
		decodeStrict(m["v"], &v) && v == FormatVersion &&
		decodeStrict(m["id"], &h.ID) && decodeStrict(m["cwd"], &h.Cwd)
	if ok {
		h.StorageVersion, ok = safeInt(m["storageVersion"], 1)
	}
	if ok {
		h.CreatedAt, ok = safeInt(m["createdAt"], 0)
	}
	if raw, present := m["nextSeq"]; ok && present {
		var n int64
		n, ok = safeInt(raw, 1)
		h.NextSeq = &n
	}
	if raw, present := m["parentSessionId"]; ok && present {
		h.ParentSessionID = new(string)
		ok = decodeStrict(raw, h.ParentSessionID)
	}
	if raw, present := m["legacyParentSessionPath"]; ok && present {
		h.LegacyParentSessionPath = new(string)
		ok = decodeStrict(raw, h.LegacyParentSessionPath)
	}
	if !ok {
		return Header{}, errHeaderUnsupport
	}
	return h, nil
}

// decodeStrict decodes a present, non-null JSON value of exactly the target's
// type (a string into *string, a number into *float64).
func decodeStrict(raw json.RawMessage, into any) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return false
	}
	switch into.(type) {
	case *string:
		if raw[0] != '"' {
			return false
		}
	case *float64:
		if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
			return false
		}
	}
	return json.Unmarshal(raw, into) == nil
}

// safeInt is Number.isSafeInteger(value) && value >= minimum.
func safeInt(raw json.RawMessage, minimum int64) (int64, bool) {
	var f float64
	if !decodeStrict(raw, &f) || f != math.Trunc(f) || math.Abs(f) > store.MaxSafeInteger || f < float64(minimum) {
		return 0, false
	}
	return int64(f), true
}

// ---- records ----

// appendRecord appends w's record exactly as pi's commitWrite + JSON.stringify
// lay it out (JS spread key order).
func appendRecord(dst []byte, w *store.CommittedWrite) []byte {
	switch w.Kind {
	case store.WriteEntry:
		dst = append(dst, `{"kind":"entry",`...)
		dst = append(dst, w.Entry.Raw[1:len(w.Entry.Raw)-1]...)
		dst = append(dst, `,"seq":`...)
		dst = strconv.AppendInt(dst, w.Seq, 10)
		dst = append(dst, `,"timestamp":`...)
		dst = strconv.AppendInt(dst, w.Timestamp, 10)
		return append(dst, '}')
	case store.WriteUsage:
		dst = append(dst, `{"kind":"usage",`...)
		dst = append(dst, w.Usage.Raw[1:len(w.Usage.Raw)-1]...)
		dst = append(dst, `,"seq":`...)
		dst = strconv.AppendInt(dst, w.Seq, 10)
		return append(dst, '}')
	default:
		dst = append(dst, `{"kind":"`...)
		dst = append(dst, w.Kind...)
		dst = append(dst, `","op":"`...)
		dst = append(dst, w.Op...)
		dst = append(dst, `","seq":`...)
		dst = strconv.AppendInt(dst, w.Seq, 10)
		dst = append(dst, `,"namespace":`...)
		dst = store.AppendJSString(dst, w.Namespace)
		dst = append(dst, `,"key":`...)
		dst = store.AppendJSString(dst, w.Key)
		if w.Op != store.OpDelete && w.Value != nil { // JSON.stringify omits undefined
			dst = append(dst, `,"value":`...)
			dst = append(dst, w.Value...)
		}
		return append(dst, '}')
	}
}

// transactionSize is about the length of writes' line: exact for rows
// and for addresses that need no escapes (a capacity, not a bound).
func transactionSize(writes []store.CommittedWrite) int {
	n := 2
	for i := range writes {
		w := &writes[i]
		n += 64 // the record's own members, seq and timestamp, a comma
		switch w.Kind {
		case store.WriteEntry:
			n += len(w.Entry.Raw)
		case store.WriteUsage:
			n += len(w.Usage.Raw)
		default:
			n += len(w.Namespace) + len(w.Key) + len(w.Value)
		}
	}
	return n
}

// appendTransaction appends one commit's line (without the newline): a bare
// object for one write, an array for several. sizes receives each record's
// byte length plus one separator, for dead-byte accounting.
func appendTransaction(dst []byte, writes []store.CommittedWrite, sizes []int64) []byte {
	if len(writes) == 1 {
		start := len(dst)
		dst = appendRecord(dst, &writes[0])
		sizes[0] = int64(len(dst)-start) + 1
		return dst
	}
	dst = append(dst, '[')
	for i := range writes { // a CommittedWrite is 120 bytes: read in place
		if i > 0 {
			dst = append(dst, ',')
		}
		start := len(dst)
		dst = appendRecord(dst, &writes[i])
		sizes[i] = int64(len(dst)-start) + 1
	}
	return append(dst, ']')
}

func without(fields []store.ObjectField, drop ...string) []store.ObjectField {
	out := make([]store.ObjectField, 0, len(fields))
next:
	for _, f := range fields {
		for _, d := range drop {
			if f.Key == d {
				continue next
			}
		}
		out = append(out, f)
	}
	return out
}
