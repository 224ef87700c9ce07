package storeconform

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/serve"
)

// Remote is a store.Storage served by a process over the frameproof-store
// protocol: the suite's cases run against it as against any backend. Reads
// come back in pi's JSON shapes and are turned into store rows: an entry's
// raw is the object pi returns without its seq and timestamp, a usage row's
// without its seq, and every JSON value is rewritten as JSON.stringify
// writes it (a Go server escapes <, > and & where node does not).
type Remote struct {
	ctx     context.Context
	subject Subject
	dir     string
	p       *proc
	// err is the first transport failure a method without an error result
	// (NextSeq) met; the case reports it.
	err error
}

var _ store.Storage = (*Remote)(nil)

// Dial starts the subject on dir.
func Dial(ctx context.Context, s Subject, dir string) (*Remote, error) {
	p, err := start(ctx, s, dir)
	if err != nil {
		return nil, err
	}
	return &Remote{ctx: ctx, subject: s, dir: dir, p: p}, nil
}

// Hello is the running server's hello.
func (r *Remote) Hello() Hello { return r.p.hello }

// Err is the first transport failure NextSeq swallowed.
func (r *Remote) Err() error { return r.err }

// Reopen ends the server cleanly (end of input) and starts a new one on
// the same directory.
func (r *Remote) Reopen() error {
	if err := r.p.close(); err != nil {
		return err
	}
	p, err := start(r.ctx, r.subject, r.dir)
	if err != nil {
		return err
	}
	r.p = p
	return nil
}

// Kill SIGKILLs the server and starts a new one on the same directory.
func (r *Remote) Kill() error {
	r.p.kill()
	p, err := start(r.ctx, r.subject, r.dir)
	if err != nil {
		return err
	}
	r.p = p
	return nil
}

// Fault arms a storage fault in the server ("fault" op): its store's next
// write (or sync) fails as the fault's name says.
func (r *Remote) Fault(name string) error {
	return r.p.call("fault", []byte(`"fault":`+strconv.Quote(name)), nil)
}

func commitBody(writes []store.Write) []byte {
	b := []byte(`"writes":[`)
	for i, w := range writes {
		if i > 0 {
			b = append(b, ',')
		}
		b = serve.AppendWrite(b, w)
	}
	return append(b, ']')
}

// Commit is pi's commit.
func (r *Remote) Commit(writes []store.Write) (store.CommitResult, error) {
	var res struct {
		FirstSeq  int64   `json:"firstSeq"`
		Seqs      []int64 `json:"seqs"`
		Timestamp int64   `json:"timestamp"`
	}
	if err := r.p.call("commit", commitBody(writes), &res); err != nil {
		return store.CommitResult{}, err
	}
	if len(res.Seqs) == 0 {
		res.Seqs = nil
	}
	return store.CommitResult{FirstSeq: res.FirstSeq, Seqs: res.Seqs, Timestamp: res.Timestamp}, nil
}

func addressBody(field, ns, key string) []byte {
	b := append([]byte(`"`+field+`":{"namespace":`), store.AppendJSString(nil, ns)...)
	b = append(b, `,"key":`...)
	b = store.AppendJSString(b, key)
	return append(b, '}')
}

// wireStored is pi's StoredValue.
type wireStored struct {
	Address struct {
		Namespace string `json:"namespace"`
		Key       string `json:"key"`
	} `json:"address"`
	Value json.RawMessage `json:"value"`
	Seq   int64           `json:"seq"`
}

func (w wireStored) stored() store.StoredValue {
	return store.StoredValue{
		Address: store.Address{Namespace: w.Address.Namespace, Key: w.Address.Key, Kind: store.KindValue},
		Value:   canonical(w.Value), Seq: w.Seq,
	}
}

// GetValue is pi's getValue (undefined → nil).
func (r *Remote) GetValue(addr store.Address) (*store.StoredValue, error) {
	var v *wireStored
	if err := r.p.call("getValue", addressBody("address", addr.Namespace, addr.Key), &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	sv := v.stored()
	return &sv, nil
}

// ScanValues is pi's scanValues(value(namespace, keyPrefix)).
func (r *Remote) ScanValues(namespace, keyPrefix string) ([]store.StoredValue, error) {
	var vs []wireStored
	if err := r.p.call("scanValues", addressBody("prefix", namespace, keyPrefix), &vs); err != nil {
		return nil, err
	}
	out := make([]store.StoredValue, len(vs))
	for i, v := range vs {
		out[i] = v.stored()
	}
	return out, nil
}

// ReadList is pi's readList; a Limit of 0 not given is no limit member.
func (r *Remote) ReadList(addr store.Address, o store.ReadOptions) ([]store.ListElement, error) {
	b := addressBody("address", addr.Namespace, addr.Key)
	b = append(b, `,"options":{`...)
	sep := ""
	if o.Cursor != nil {
		b = append(b, `"cursor":{"seq":`+strconv.FormatInt(*o.Cursor, 10)+`}`...)
		sep = ","
	}
	if o.Order != "" {
		b = append(b, sep+`"order":`...)
		b = store.AppendJSString(b, string(o.Order))
		sep = ","
	}
	if o.Limit != 0 || o.LimitSet {
		b = append(b, sep+`"limit":`+strconv.Itoa(o.Limit)...)
	}
	b = append(b, '}')
	var els []struct {
		Seq   int64           `json:"seq"`
		Value json.RawMessage `json:"value"`
	}
	if err := r.p.call("readList", b, &els); err != nil {
		return nil, err
	}
	out := make([]store.ListElement, len(els))
	for i, e := range els {
		out[i] = store.ListElement{Seq: e.Seq, Value: canonical(e.Value)}
	}
	return out, nil
}

// Entries is pi's scanEntries({}): every entry in seq order.
func (r *Remote) Entries() ([]store.StoredEntry, error) {
	var raws []json.RawMessage
	if err := r.p.call("scanEntries", []byte(`"query":{}`), &raws); err != nil {
		return nil, err
	}
	out := make([]store.StoredEntry, len(raws))
	for i, raw := range raws {
		obj, err := object(raw)
		if err != nil {
			return nil, fmt.Errorf("scanEntries: %w", err)
		}
		e := store.StoredEntry{Seq: intMember(obj, "seq"), Timestamp: intMember(obj, "timestamp")}
		obj.ObjectValue().Delete("seq")
		obj.ObjectValue().Delete("timestamp")
		e.Entry.ID = obj.Prop("id").Str()
		if p := obj.Prop("parentId"); p.Kind() == pi.String {
			s := p.Str()
			e.Entry.ParentID = &s
		}
		e.Entry.Raw = obj.AppendJSON(nil)
		out[i] = e
	}
	return out, nil
}

// Usage is pi's scanUsage({}): every usage row in seq order.
func (r *Remote) Usage() ([]store.StoredUsage, error) {
	var raws []json.RawMessage
	if err := r.p.call("scanUsage", []byte(`"query":{}`), &raws); err != nil {
		return nil, err
	}
	out := make([]store.StoredUsage, len(raws))
	for i, raw := range raws {
		obj, err := object(raw)
		if err != nil {
			return nil, fmt.Errorf("scanUsage: %w", err)
		}
		u := store.StoredUsage{Seq: intMember(obj, "seq")}
		obj.ObjectValue().Delete("seq")
		u.Row.ID = obj.Prop("id").Str()
		u.Row.Raw = obj.AppendJSON(nil)
		out[i] = u
	}
	return out, nil
}

// NextSeq is the firstSeq an empty commit returns (pi's commit of no
// writes consumes no seq and writes nothing). A failure gives 0 and is
// kept for Err.
func (r *Remote) NextSeq() int64 {
	res, err := r.Commit(nil)
	if err != nil {
		if r.err == nil {
			r.err = fmt.Errorf("commit([]) for the next seq: %w", err)
		}
		return 0
	}
	return res.FirstSeq
}

// Close ends the server cleanly (end of input).
func (r *Remote) Close() error { return r.p.close() }

// kill ends the server with SIGKILL, starting no other.
func (r *Remote) kill() { r.p.kill() }

// object parses a JSON object with JS semantics (pi.ParseJSON).
func object(raw json.RawMessage) (pi.JSONValue, error) {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return v, err
	}
	if v.Kind() != pi.Object {
		return v, fmt.Errorf("not an object: %.200s", raw)
	}
	return v, nil
}

func intMember(v pi.JSONValue, k string) int64 { return int64(v.Prop(k).Number()) }

// canonical rewrites a JSON value as JSON.stringify(JSON.parse(raw)); nil
// (pi's undefined, a member JSON.stringify left out) stays nil.
func canonical(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	if out, ok := pi.AppendRestringified(nil, string(raw)); ok {
		return out
	}
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return raw
	}
	return v.AppendJSON(nil)
}
