// Package serve exposes one store backend as pi's Storage over a stdio
// protocol, "frameproof-store" v1, in the style of the pi-ai peer protocol
// (corpus/peers/pi-ai/README.md): the first output line is a hello; after
// it every input line is one JSON request {"id", "op", ...} and gets exactly
// one JSON response line, in order, echoing the id:
//
//	{"id":N,"result":R}             the call succeeded
//	{"id":N,"error":{"message":M}}  the storage rejected the call (pi's message)
//	{"id":N,"protocolError":M}      the request itself was malformed
//
// The ops are pi's Storage methods (session/types.ts) with pi's JSON shapes:
// commit{writes} → {firstSeq, seqs, timestamp, stats}; getEntries{ids} →
// [entry...] (each {...entry, seq, timestamp}, in Map order); getValue{address}
// → StoredValue or null; scanValues{prefix}; readList{address, options};
// scanBranch{query}; scanBranchStructure{query}; scanEntries{query};
// scanUsage{query}; getStats; close; and, not pi's, fault{fault} where the
// hello offers faults. Requests are served one at a time in
// arrival order, so a commit's stats are the totals right after it, as pi's
// commit queue gives them. corpus/peers/pi-agent-core/storage-adapter.mjs
// presents a served store as pi's Storage.
package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/frameproof/frameproof/impl/lineio"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// Protocol identity announced in the hello line.
const (
	ProtocolName    = "frameproof-store"
	ProtocolVersion = 1
)

// MaxLine bounds one request line.
const MaxLine = 256 << 20

// Hello is the first line Serve prints.
type Hello struct {
	Protocol              string `json:"hello"`
	Version               int    `json:"version"`
	Implementation        string `json:"implementation"`
	ImplementationVersion string `json:"implementationVersion"`
	Backend               string `json:"backend"`
	// Durable: a new server on the same directory reopens what this one
	// committed (the backend row's Durable); `frameproof conform --suite
	// store` kills and reopens only such a server.
	Durable bool `json:"durable"`
	// Faults are the storage faults the "fault" op can arm (`frameproof
	// serve store --faults`; none otherwise): `conform --suite store`'s
	// storage-fault case runs only against a server that offers them.
	Faults []string `json:"faults,omitempty"`
}

// Injector arms one storage fault in the served store's file system: the
// next write (or sync) fails as the named fault says. The "fault" op
// {"id","op":"fault","fault":NAME} calls it.
type Injector interface {
	Faults() []string
	Inject(fault string) error
}

// Serve answers requests from in on out until in ends (a close request
// closes the store, and later calls get its closed error, as in pi); it
// closes st when it returns. version goes into the
// hello line. It returns an error only for I/O failures (and for a line
// longer than MaxLine).
func Serve(st store.QueryStorage, backend, version string, in io.Reader, out io.Writer) (err error) {
	return ServeFaulty(st, backend, version, nil, in, out)
}

// ServeFaulty is Serve with the "fault" op served by inj (nil: none).
func ServeFaulty(st store.QueryStorage, backend, version string, inj Injector, in io.Reader, out io.Writer) (err error) {
	defer func() {
		if cerr := st.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("serve: close store: %w", cerr)
		}
	}()
	s := &server{st: st, inj: inj}
	hello := newHello(ProtocolName, ProtocolVersion, version, backend)
	if inj != nil {
		hello.Faults = inj.Faults()
	}
	return serveLines(hello, in, out, s.handle)
}

// newHello is a protocol's hello for backend, saying whether it is
// durable (its registry row).
func newHello(protocol string, protocolVersion int, version, backend string) Hello {
	durable := false
	if b, err := backends.ByName(backend); err == nil {
		durable = b.Durable
	}
	return Hello{Protocol: protocol, Version: protocolVersion, Implementation: "frameproof", ImplementationVersion: version, Backend: backend, Durable: durable}
}

// serveLines prints hello, then answers each non-blank line of in with the
// response handle gives, until in ends.
func serveLines(hello any, in io.Reader, out io.Writer, handle func([]byte) response) error {
	w := bufio.NewWriter(out)
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("serve: encode response: %w", err)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("serve: write: %w", err)
		}
		return w.Flush()
	}
	if err := send(hello); err != nil {
		return err
	}
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, rerr := lineio.ReadLine(r, MaxLine)
		if len(bytes.TrimSpace(line)) > 0 {
			resp := handle(line)
			if err := send(resp); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return fmt.Errorf("serve: read: %w", rerr)
		}
	}
}

type server struct {
	st  store.QueryStorage
	inj Injector // nil: no "fault" op
}

// response is one output line.
type response struct {
	ID            json.RawMessage `json:"id"`
	Result        any             `json:"result,omitempty"`
	Error         *callError      `json:"error,omitempty"`
	ProtocolError *string         `json:"protocolError,omitempty"`
}

type callError struct {
	Message string `json:"message"`
}

// protocolErr marks a malformed request.
type protocolErr struct{ msg string }

func (e *protocolErr) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &protocolErr{fmt.Sprintf(format, args...)}
}

// null is a JSON null result (omitempty drops a nil any, not this).
var null = json.RawMessage("null")

func (s *server) handle(line []byte) response { return handleRequest(line, s.call) }

// handleRequest decodes one request line and answers it with call.
func handleRequest(line []byte, call func(op string, req map[string]json.RawMessage) (any, error)) response {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(line, &req); err != nil || req == nil {
		msg := "request must be a JSON object"
		if err != nil {
			msg = "bad JSON request line: " + err.Error()
		}
		return response{ID: null, ProtocolError: &msg}
	}
	id := req["id"]
	if id == nil {
		id = null
	}
	var op string
	if err := json.Unmarshal(req["op"], &op); err != nil {
		msg := fmt.Sprintf("unknown op: %s", req["op"])
		return response{ID: id, ProtocolError: &msg}
	}
	result, err := call(op, req)
	var pe *protocolErr
	switch {
	case errors.As(err, &pe):
		msg := pe.msg
		return response{ID: id, ProtocolError: &msg}
	case err != nil:
		return response{ID: id, Error: &callError{Message: err.Error()}}
	}
	if result == nil {
		result = null
	}
	return response{ID: id, Result: result}
}

func (s *server) call(op string, req map[string]json.RawMessage) (any, error) {
	switch op {
	case "commit":
		var raws []json.RawMessage
		if err := json.Unmarshal(req["writes"], &raws); err != nil {
			return nil, badRequest("commit: writes must be an array")
		}
		writes := make([]store.Write, len(raws))
		for i, raw := range raws {
			w, err := DecodeWrite(raw)
			if err != nil {
				return nil, err
			}
			writes[i] = w
		}
		res, err := s.st.Commit(writes)
		if err != nil {
			return nil, err
		}
		stats, err := s.st.GetStats()
		if err != nil {
			return nil, err
		}
		seqs := res.Seqs
		if seqs == nil {
			seqs = []int64{}
		}
		return map[string]any{"firstSeq": res.FirstSeq, "seqs": seqs, "timestamp": res.Timestamp, "stats": stats}, nil
	case "getEntries":
		var ids []jsStr
		if err := json.Unmarshal(req["ids"], &ids); err != nil {
			return nil, badRequest("getEntries: ids must be an array of strings")
		}
		es, err := s.st.GetEntries(strs(ids))
		if err != nil {
			return nil, err
		}
		return entriesJSON(es), nil
	case "getValue", "scanValues":
		field := map[string]string{"getValue": "address", "scanValues": "prefix"}[op]
		addr, err := decodeAddress(req[field])
		if err != nil {
			return nil, err
		}
		if op == "getValue" {
			v, err := s.st.GetValue(addr)
			if err != nil || v == nil {
				return nil, err
			}
			return storedValue(*v), nil
		}
		vs, err := s.st.ScanValues(addr.Namespace, addr.Key)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(vs))
		for i, v := range vs {
			out[i] = storedValue(v)
		}
		return out, nil
	case "readList":
		addr, err := decodeAddress(req["address"])
		if err != nil {
			return nil, err
		}
		opts, err := DecodeReadOptions(req["options"])
		if err != nil {
			return nil, err
		}
		els, err := s.st.ReadList(store.Address{Namespace: addr.Namespace, Key: addr.Key, Kind: store.KindList}, opts)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(els))
		for i, el := range els {
			out[i] = map[string]any{"seq": el.Seq, "value": el.Value}
		}
		return out, nil
	case "scanBranch", "scanBranchStructure":
		q, err := DecodeBranchScan(req["query"])
		if err != nil {
			return nil, err
		}
		if op == "scanBranch" {
			es, err := s.st.ScanBranch(q)
			if err != nil {
				return nil, err
			}
			return entriesJSON(es), nil
		}
		ss, err := s.st.ScanBranchStructure(q)
		if err != nil {
			return nil, err
		}
		return ss.Slice(), nil
	case "scanEntries":
		q, err := DecodeEntryScan(req["query"])
		if err != nil {
			return nil, err
		}
		es, err := s.st.ScanEntries(q)
		if err != nil {
			return nil, err
		}
		return entriesJSON(es), nil
	case "scanUsage":
		q, err := DecodeUsageScan(req["query"])
		if err != nil {
			return nil, err
		}
		rows, err := s.st.ScanUsage(q)
		if err != nil {
			return nil, err
		}
		out := make([]json.RawMessage, len(rows))
		for i, u := range rows {
			out[i] = withMembers(u.Row.Raw, "seq", u.Seq)
		}
		return out, nil
	case "getStats":
		return s.st.GetStats()
	case "close":
		return nil, s.st.Close()
	case "fault":
		var fault string
		if s.inj == nil {
			return nil, badRequest("fault: this server injects no faults (serve store --faults)")
		}
		if err := json.Unmarshal(req["fault"], &fault); err != nil {
			return nil, badRequest("fault: want a fault name")
		}
		if err := s.inj.Inject(fault); err != nil {
			return nil, badRequest("fault: %v", err)
		}
		return nil, nil
	}
	return nil, badRequest("unknown op: %q", op)
}

// entriesJSON renders stored entries as pi's Entry objects.
func entriesJSON(es store.EntryList) []json.RawMessage {
	out := make([]json.RawMessage, es.Len())
	for i, e := range es.All() {
		out[i] = EntryJSON(e)
	}
	return out
}

// EntryJSON is pi's stored Entry: the entry's own members, then seq and
// timestamp (commit.ts materializeCommittedEntry).
func EntryJSON(e store.StoredEntry) json.RawMessage {
	return withMembers(e.Entry.Raw, "seq", e.Seq, "timestamp", e.Timestamp)
}

// withMembers appends integer members to a JSON object.
func withMembers(obj json.RawMessage, kv ...any) json.RawMessage {
	b := append([]byte(nil), bytes.TrimSpace(obj)...)
	b = b[:len(b)-1]
	empty := bytes.Equal(bytes.TrimSpace(b), []byte("{"))
	for i := 0; i < len(kv); i += 2 {
		if !empty || i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, kv[i].(string)...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, kv[i+1].(int64), 10)
	}
	return append(b, '}')
}

// storedValue is a StoredValue as pi's JSON: its address's strings
// quoted as JSON.stringify quotes a JS string (AppendJSString), so that a
// lone surrogate stays its escape where encoding/json would write U+FFFD.
func storedValue(v store.StoredValue) map[string]any {
	return map[string]any{
		"address": map[string]any{"namespace": jsJSON(v.Address.Namespace), "key": jsJSON(v.Address.Key), "kind": "value"},
		"value":   v.Value,
		"seq":     v.Seq,
	}
}

// jsJSON is s as JSON.stringify writes a JS string.
func jsJSON(s string) json.RawMessage { return store.AppendJSString(nil, s) }

// wireAddress is pi's Value / ValueList address.
type wireAddress struct {
	Namespace *jsStr `json:"namespace"`
	Key       *jsStr `json:"key"`
}

func decodeAddress(raw json.RawMessage) (store.Address, error) {
	var a wireAddress
	if err := json.Unmarshal(raw, &a); err != nil || a.Namespace == nil || a.Key == nil {
		return store.Address{}, badRequest("address must be {namespace, key}")
	}
	return store.Address{Namespace: string(*a.Namespace), Key: string(*a.Key), Kind: store.KindValue}, nil
}

// DecodeWrite turns one of pi's Write objects (commit.ts insertEntry,
// insertUsage; values.ts setValue, deleteValue, appendList, deleteList)
// into a store.Write.
func DecodeWrite(raw json.RawMessage) (store.Write, error) {
	var head struct {
		Kind      string          `json:"kind"`
		Op        string          `json:"op"`
		Entry     json.RawMessage `json:"entry"`
		Row       json.RawMessage `json:"row"`
		Namespace jsStr           `json:"namespace"`
		Key       jsStr           `json:"key"`
		Value     json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return store.Write{}, badRequest("write: %v", err)
	}
	switch head.Kind {
	case "entry":
		var ids struct {
			ID       jsStr  `json:"id"`
			ParentID *jsStr `json:"parentId"`
		}
		if err := json.Unmarshal(head.Entry, &ids); err != nil {
			return store.Write{}, badRequest("entry write: %v", err)
		}
		var parent *string
		if ids.ParentID != nil {
			p := string(*ids.ParentID)
			parent = &p
		}
		return store.InsertEntry(store.Entry{ID: string(ids.ID), ParentID: parent, Raw: head.Entry}), nil
	case "usage":
		var ids struct {
			ID jsStr `json:"id"`
		}
		if err := json.Unmarshal(head.Row, &ids); err != nil {
			return store.Write{}, badRequest("usage write: %v", err)
		}
		return store.InsertUsage(store.UsageRow{ID: string(ids.ID), Raw: head.Row}), nil
	case "value", "list":
		w := store.Write{Kind: store.WriteKind(head.Kind), Op: store.WriteOp(head.Op), Namespace: string(head.Namespace), Key: string(head.Key), Value: head.Value}
		if (head.Op == "set" || head.Op == "append") && head.Value == nil {
			// pi stores undefined as a missing member; JSON has no undefined
			return store.Write{}, badRequest("%s write: value is missing", head.Kind)
		}
		return w, nil
	}
	return store.Write{}, badRequest("write: unknown kind %q", head.Kind)
}

// jsNumber decodes an optional JSON number member: nil when absent or null.
func jsNumber(raw json.RawMessage, what string) (*float64, error) {
	if raw == nil || string(raw) == "null" {
		return nil, nil
	}
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, badRequest("%s must be a number", what)
	}
	return &x, nil
}

// clampInt turns a JS number into an int64 for a comparison or a limit.
func clampInt(x float64) int64 {
	switch {
	case math.IsNaN(x):
		return 0
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// seqBound converts a JS number to the integer seq bound that admits the
// same integer seqs: ceil for a lower bound (seq >= x), floor for an upper.
func seqBound(x *float64, lower bool) *int64 {
	if x == nil {
		return nil
	}
	v := math.Floor(*x)
	if lower {
		v = math.Ceil(*x)
	}
	n := clampInt(v)
	return &n
}

// sliceCount is the count slice(0, x) / Math.trunc(x) keeps.
func sliceCount(x *float64) *int64 {
	if x == nil {
		return nil
	}
	n := clampInt(math.Trunc(*x))
	return &n
}

type rawQuery map[string]json.RawMessage

func decodeQuery(raw json.RawMessage) (rawQuery, error) {
	q := rawQuery{}
	if raw == nil || string(raw) == "null" {
		return q, nil
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, badRequest("query must be an object")
	}
	return q, nil
}

func (q rawQuery) str(k string) (*string, error) {
	raw, ok := q[k]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var s jsStr
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, badRequest("%s must be a string", k)
	}
	str := string(s)
	return &str, nil
}

func (q rawQuery) cursorSeq() (*float64, error) {
	raw, ok := q["cursor"]
	if !ok || string(raw) == "null" {
		return nil, nil
	}
	var c map[string]json.RawMessage
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, badRequest("cursor must be {seq}")
	}
	return jsNumber(c["seq"], "cursor.seq")
}

// DecodeBranchScan reads pi's StorageBranchScan.
func DecodeBranchScan(raw json.RawMessage) (store.BranchScan, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return store.BranchScan{}, err
	}
	var out store.BranchScan
	start, err := q.str("start")
	if err != nil || start == nil {
		return out, badRequest("scan: start must be a string")
	}
	out.Start = *start
	for k, dst := range map[string]**string{"stopAtType": &out.StopAtType, "stopAtId": &out.StopAtID, "type": &out.Type, "customType": &out.CustomType} {
		if *dst, err = q.str(k); err != nil {
			return out, err
		}
	}
	order, err := q.str("order")
	if err != nil {
		return out, err
	}
	if order != nil {
		out.Order = *order
	}
	limit, err := jsNumber(q["limit"], "limit")
	if err != nil {
		return out, err
	}
	out.Limit = sliceCount(limit)
	cursor, err := q.cursorSeq()
	if err != nil {
		return out, err
	}
	// oldestFirst keeps seq > c (integer seqs: seq > floor(c)); newestFirst
	// keeps seq < c (seq < ceil(c)).
	out.Cursor = seqBound(cursor, out.Order != store.OldestFirst)
	return out, nil
}

func scanOrder(q rawQuery) (store.Order, error) {
	order, err := q.str("order")
	if err != nil || order == nil || *order != "desc" {
		return store.Asc, err
	}
	return store.Desc, nil
}

// DecodeEntryScan reads pi's EntryScan.
func DecodeEntryScan(raw json.RawMessage) (store.EntryScan, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return store.EntryScan{}, err
	}
	var out store.EntryScan
	if out.Type, err = q.str("type"); err != nil {
		return out, err
	}
	if out.CustomType, err = q.str("customType"); err != nil {
		return out, err
	}
	if out.Order, err = scanOrder(q); err != nil {
		return out, err
	}
	from, to, limit, err := seqRangeOf(q)
	out.FromSeq, out.ToSeq, out.Limit = from, to, limit
	return out, err
}

// DecodeUsageScan reads pi's UsageScan.
func DecodeUsageScan(raw json.RawMessage) (store.UsageScan, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return store.UsageScan{}, err
	}
	var out store.UsageScan
	if out.Order, err = scanOrder(q); err != nil {
		return out, err
	}
	from, to, limit, err := seqRangeOf(q)
	out.FromSeq, out.ToSeq, out.Limit = from, to, limit
	return out, err
}

func seqRangeOf(q rawQuery) (from, to, limit *int64, err error) {
	f, err := jsNumber(q["fromSeq"], "fromSeq")
	if err != nil {
		return nil, nil, nil, err
	}
	t, err := jsNumber(q["toSeq"], "toSeq")
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := jsNumber(q["limit"], "limit")
	if err != nil {
		return nil, nil, nil, err
	}
	return seqBound(f, true), seqBound(t, false), sliceCount(l), nil
}

// DecodeReadOptions reads pi's ListReadOptions as resolveListReadOptions
// (values.ts) does: limit ?? 1000 must be a positive safe integer (any
// other value, a non-number included, is pi's error), order ?? "asc", and
// any order but "asc" reads descending, as pi's readList does.
func DecodeReadOptions(raw json.RawMessage) (store.ReadOptions, error) {
	q, err := decodeQuery(raw)
	if err != nil {
		return store.ReadOptions{}, err
	}
	var out store.ReadOptions
	if l, ok := q["limit"]; ok && string(l) != "null" {
		var x float64
		if json.Unmarshal(l, &x) != nil || x != math.Trunc(x) || x <= 0 || x > store.MaxSafeInteger {
			return out, store.ErrInvalidListLimit
		}
		out.Limit, out.LimitSet = int(x), true
	}
	out.Order = store.Asc
	if o, ok := q["order"]; ok && string(o) != "null" && string(o) != `"asc"` {
		out.Order = store.Desc
	}
	cursor, err := q.cursorSeq()
	if err != nil {
		return out, err
	}
	out.Cursor = seqBound(cursor, out.Order == store.Desc)
	return out, nil
}

// jsStr is a request's JSON string read as the store reads a row's id
// (store.JSUnquote: as node reads a line and JSON.parse decodes it), where
// encoding/json would turn a lone surrogate escape into U+FFFD: an entry or
// usage id (or a query's id or type) the live store is asked for is the
// one its file holds after a reopen. Value and list addresses are read the
// same way: two keys that differ only in a lone surrogate are two cells in
// pi's maps and in the store's file, and must not meet as one U+FFFD cell.
// null leaves it as it was, as encoding/json does.
type jsStr string

func (s *jsStr) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	v, ok := store.JSUnquote(b)
	if !ok {
		return fmt.Errorf("want a string, not %.40s", b)
	}
	*s = jsStr(v)
	return nil
}

// strs is a []jsStr as plain strings.
func strs(xs []jsStr) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
