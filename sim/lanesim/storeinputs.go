package lanesim

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	mstore "github.com/frameproof/frameproof/model/store"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// storeInputs are a swarm seed's JSONL store settings and the file the run
// starts from, besides what the lane writes itself (ignored by the other
// backends):
//   - strict opens with jsonl.Options.Strict, frameproof's own rules on top
//     of pi's (off, pi's open, by default);
//   - foreign starts from a file another pi writer committed value and list
//     rows to, whose namespaces and keys may be JS arrays: pi's values.ts
//     value()/list() check them with .length and .includes, which arrays
//     have too, and its maps key them by String(), the elements joined
//     with ",";
//   - probe first opens a file whose last line the open must refuse, with
//     the cause pi (or, strict, frameproof) names, and then starts over.
type storeInputs struct {
	strict, foreign, probe bool
}

// drawStoreInputs draws a swarm seed's store inputs.
func drawStoreInputs(src choice.Source) storeInputs {
	return storeInputs{
		strict:  choice.Bool(src, "swarm: jsonl strict"),
		foreign: choice.Bool(src, "swarm: foreign rows"),
		probe:   choice.Bool(src, "swarm: refused-file probe"),
	}
}

// jsPart is one namespace or key as a pi writer may hold it: raw is its
// JSON, name the String() pi keys its maps by.
type jsPart struct{ raw, name string }

func jsStr(s string) jsPart { return jsPart{raw: quoteJS(s), name: s} }

// jsArr is a JS array of strings: String() joins the elements with ",".
func jsArr(elems ...string) jsPart {
	raws := make([]string, len(elems))
	for i, e := range elems {
		raws[i] = quoteJS(e)
	}
	return jsPart{raw: "[" + strings.Join(raws, ",") + "]", name: strings.Join(elems, ",")}
}

// quoteJS is JSON.stringify of a string without NUL or other control
// characters but NUL, which it writes as \u0000.
func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// foreignParts are the namespaces and keys the foreign rows draw from: the
// string and the array forms name the same physical address ("ext,notes").
// Strict refuses every array form (string addresses only).
var (
	foreignValueNS = []jsPart{jsStr("ext"), jsStr("ext,notes"), jsArr("ext"), jsArr("ext", "notes")}
	foreignListNS  = []jsPart{jsStr("log"), jsArr("log", "x"), jsStr("log,x")}
	foreignKeys    = []jsPart{jsStr("k"), jsStr("a,b"), jsArr("k"), jsArr("a", "b")}
	foreignValues  = []string{`1`, `"s"`, `{"note":"x"}`, `[1,"two"]`, `true`}
)

// drawForeign draws one to three rows a pi writer committed in one
// transaction (seqs 1..n): the line, and the writes the store oracle takes.
func drawForeign(src choice.Source, strict bool) (string, []store.Write) {
	pick := func(label string, parts []jsPart) jsPart {
		if strict {
			var strs []jsPart
			for _, p := range parts {
				if p.raw[0] == '"' {
					strs = append(strs, p)
				}
			}
			parts = strs
		}
		return choice.Pick(src, label, parts)
	}
	n := choice.Range(src, "foreign rows", 1, 3)
	recs := make([]string, n)
	ws := make([]store.Write, n)
	for i := range recs {
		list := choice.Bool(src, "foreign list")
		kind, op, nsParts, wk, wop := "value", "set", foreignValueNS, store.WriteValue, store.OpSet
		if list {
			kind, op, nsParts, wk, wop = "list", "append", foreignListNS, store.WriteList, store.OpAppend
		}
		ns, key := pick("foreign namespace", nsParts), pick("foreign key", foreignKeys)
		val := choice.Pick(src, "foreign value", foreignValues)
		recs[i] = fmt.Sprintf(`{"kind":%q,"op":%q,"seq":%d,"namespace":%s,"key":%s,"value":%s}`, kind, op, i+1, ns.raw, key.raw, val)
		ws[i] = store.Write{Kind: wk, Op: wop, Namespace: ns.name, Key: key.name, Value: json.RawMessage(val)}
	}
	if n == 1 {
		return recs[0], ws
	}
	return "[" + strings.Join(recs, ",") + "]", ws
}

// refusal is a line the open must refuse and the cause it must name.
type refusal struct{ line, cause string }

// Refused in either mode: an entry whose timestamp is not a safe integer
// (storage.ts parseCommittedWrite), and lines JSON.parse rejects (a \u
// escape without four hex digits; an empty line, which JsonlStorage.open
// parses like any other: storage.ts parseTransaction).
var (
	emptyLine    = refusal{``, "Invalid JSONL transaction: not valid JSON"}
	badTimestamp = refusal{`{"kind":"entry","type":"message","id":"e1","parentId":null,"seq":1,"timestamp":"soon"}`,
		"Invalid JSONL entry timestamp"}
	badEscape = refusal{`{"kind":"value","op":"set","seq":1,"namespace":"n","key":"\uZZZZ","value":1}`,
		"Invalid JSONL transaction: not valid JSON"}
)

// drawRefusal draws the probe's refused line. pi's .includes("\u0000") on
// an array compares elements, so an array holding "\u0000" is refused with
// values.ts's message, stated by model/store; a number has no .includes
// (V8's TypeError). Strict refuses any array address and any entry id that
// is not a string (frameproof's messages) before values.ts sees them.
func drawRefusal(src choice.Source, strict bool) refusal {
	nulCause := func(a mstore.Addr) string { return mstore.ValidateAddr(a).Error() }
	if strict {
		return choice.Pick(src, "probe line", []refusal{
			{`{"kind":"value","op":"set","seq":1,"namespace":["ext"],"key":"k","value":1}`, "Invalid JSONL value address"},
			{`{"kind":"entry","type":"message","id":7,"parentId":null,"seq":1,"timestamp":1}`, "Invalid JSONL entry id"},
			badTimestamp, badEscape, emptyLine,
		})
	}
	return choice.Pick(src, "probe line", []refusal{
		{`{"kind":"value","op":"set","seq":1,"namespace":["ext","\u0000"],"key":"k","value":1}`, nulCause(mstore.Addr{Namespace: "\x00", Key: "k"})},
		{`{"kind":"list","op":"append","seq":1,"namespace":"log","key":["\u0000"],"value":1}`, nulCause(mstore.Addr{Namespace: "log", Key: "\x00"})},
		{`{"kind":"value","op":"set","seq":1,"namespace":7,"key":"k","value":1}`, "namespace.includes is not a function"},
		badTimestamp, badEscape, emptyLine,
	})
}

// jsonlHeader is line 1 of a file a pi writer created.
func jsonlHeader(createdAt int64) string {
	return fmt.Sprintf(`{"v":4,"kind":"header","id":"sim","storageVersion":1,"createdAt":%d,"cwd":"/"}`, createdAt)
}

// openInputs opens the run's first JSONL store from its drawn inputs: the
// probe's refused file first, then the file the run starts from (the
// header, and the foreign rows, which the store oracle takes as the
// acknowledged commit they were).
func (b *envFSBackend) openInputs(e env.Env) (store.Storage, error) {
	r, in := b.r, b.r.p.storeInputs
	path := b.b.Path(b.dir)
	header := jsonlHeader(r.w.Now().UnixMilli())
	if in.probe {
		ref := drawRefusal(r.w, in.strict)
		b.fs.WriteDurable(path, []byte(header+"\n"+ref.line+"\n"))
		st, err := b.b.Open(e, b.dir, b.opts)
		if err == nil {
			_ = st.Close()
		}
		if msg := refusedAs(err, ref.cause); msg != "" {
			r.fail(campaign.KindStore, "opening a file whose line 2 is %s: %s", ref.line, msg)
			return nil, errors.New("lanesim: the refused-file probe failed")
		}
		r.fault("refused-file probe: " + ref.cause)
	}
	content := header + "\n"
	if in.foreign {
		line, ws := drawForeign(r.w, in.strict)
		content += line + "\n"
		if _, err := r.ref.Commit(ws); err != nil {
			return nil, fmt.Errorf("lanesim: the store oracle refuses the foreign rows %s: %w", line, err)
		}
		r.reference.lists.note(ws)
		r.fault("the store starts with foreign rows " + line)
		for _, w := range ws {
			if w.Kind == store.WriteValue && !slices.Contains(r.foreignNS, w.Namespace) {
				r.foreignNS = append(r.foreignNS, w.Namespace)
			}
		}
	}
	b.fs.WriteDurable(path, []byte(content))
	return b.b.Open(e, b.dir, b.opts)
}

// refusedAs says how err fails to be the open's refusal of line 2 with
// cause ("" when it is).
func refusedAs(err error, cause string) string {
	var se *jsonl.StorageError
	switch {
	case err == nil:
		return "the open succeeded"
	case !errors.As(err, &se):
		return fmt.Sprintf("the open failed with %v, not a storage error", err)
	case se.Line != 2 || se.Cause == nil || se.Cause.Error() != cause:
		return fmt.Sprintf("the open failed with %v (line %d, cause %v), want line 2 and cause %q", err, se.Line, se.Cause, cause)
	}
	return ""
}

// strictHook is the backends.Options.JSONL hook that sets Strict before
// next (the bug switches' hook, or nil).
func strictHook(next func(jsonl.Options) (jsonl.Options, error)) func(jsonl.Options) (jsonl.Options, error) {
	return func(o jsonl.Options) (jsonl.Options, error) {
		o.Strict = true
		if next == nil {
			return o, nil
		}
		return next(o)
	}
}
