package jsonlpi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/serve"
)

// pi's v3 session import (pi-agent-core 0.85.1 session/jsonl/legacy-v3.js
// normalizeLegacyV3Records, storage.js JsonlStorage.openLegacyV3 and
// upgradeLegacyV3ToV4): v3 files drawn from legacy-v3.ts's own record
// declarations (LegacyV3SessionHeader and the ten LegacyV3*Entry types),
// with a share of damaged ones (unknown types, duplicate or dangling ids,
// compactions off their branch, cycles, bad JSON, bad timestamps, torn
// tails), open in pi's JsonlStorage and in frameproof's jsonl.Open with the
// same state and stats, or both refuse them with the same message; then
// one commit upgrades the file in both, to the same bytes and state.
//
// Reminted ids are random in pi (uuidv7 with the record's timestamp), so
// every UUID is renamed by its first appearance before comparing. One
// representational difference is normalized, not hidden: pi's imported
// entries keep the committed write's key order (id, parentId, seq,
// timestamp, type, ...), frameproof's stored entries always end in seq and
// timestamp; the entries are compared with those two moved last.

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`)

// renameUUIDs replaces each distinct UUIDv7 in s by #n, n its rank of
// first appearance.
func renameUUIDs(s string, names map[string]string) string {
	return uuidRE.ReplaceAllStringFunc(s, func(u string) string {
		if n, ok := names[u]; ok {
			return n
		}
		n := "#" + strconv.Itoa(len(names)+1)
		names[u] = n
		return n
	})
}

// seqLast moves an entry's seq and timestamp members last.
func seqLast(raw string) string {
	v, err := pi.ParseJSON(raw)
	if err != nil || v.Kind() != pi.Object {
		return raw
	}
	o := v.ObjectValue()
	for _, k := range []string{"seq", "timestamp"} {
		if x, ok := o.Get(k); ok {
			o.Delete(k)
			o.Set(k, x)
		}
	}
	return string(v.AppendJSON(nil))
}

type v3State struct {
	Entries []json.RawMessage `json:"entries"`
	Usage   []json.RawMessage `json:"usage"`
	Values  []json.RawMessage `json:"values"`
	Lists   []json.RawMessage `json:"lists"`
	Stats   json.RawMessage   `json:"stats"`
	NextSeq int64             `json:"nextSeq"`
}

type v3Result struct {
	OK        bool    `json:"ok"`
	Error     string  `json:"error"`
	Cause     string  `json:"cause"`
	Helper    bool    `json:"helper"`
	Rewritten string  `json:"rewritten"`
	State     v3State `json:"state"`
	Commit    *struct {
		FirstSeq int64   `json:"firstSeq"`
		Seqs     []int64 `json:"seqs"`
	} `json:"commit"`
	CommitError string  `json:"commitError"`
	After       string  `json:"after"`
	StateAfter  v3State `json:"stateAfter"`
}

func (o *piOpener) request(req map[string]any, into any) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.id++
	req["id"] = o.id
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := o.in.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := o.in.Flush(); err != nil {
		return err
	}
	line, err := o.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("jsonl-open.mjs: %w", err)
	}
	if err := json.Unmarshal(line, into); err != nil {
		return fmt.Errorf("jsonl-open.mjs printed %.300s", line)
	}
	return nil
}

// v3View is one side's outcome, with UUIDs renamed.
type v3View struct {
	Error      string
	State      view
	Commit     string
	After      string
	StateAfter view
}

func (s v3State) view(names map[string]string) view {
	v := view{Entries: canonAll(s.Entries), Usage: canonAll(s.Usage), Values: canonAll(s.Values),
		Lists: canonAll(s.Lists), Stats: canon(s.Stats), NextSeq: s.NextSeq}
	for i := range v.Entries {
		v.Entries[i] = renameUUIDs(seqLast(v.Entries[i]), names)
	}
	for i := range v.Usage {
		v.Usage[i] = renameUUIDs(v.Usage[i], names)
	}
	for i := range v.Values {
		v.Values[i] = renameUUIDs(v.Values[i], names)
	}
	sort.Strings(v.Values)
	return v
}

// goState reads s as jsonl-open.mjs reads pi's storage.
func goState(s *jsonl.Store) (v3State, error) {
	var out v3State
	es, err := s.Entries()
	if err != nil {
		return out, err
	}
	for _, e := range es {
		out.Entries = append(out.Entries, serve.EntryJSON(e))
	}
	us, err := s.Usage()
	if err != nil {
		return out, err
	}
	for _, u := range us {
		row, _ := pi.ParseJSON(string(u.Row.Raw))
		row.ObjectValue().Set("seq", pi.NumberValue(float64(u.Seq)))
		out.Usage = append(out.Usage, row.AppendJSON(nil))
	}
	for _, ns := range []string{"pi.session.name", "pi.entry.label", "pi.branch.tip", "pi.lane.config", "pi.lane.state", "app"} {
		vals, err := s.ScanValues(ns, "")
		if err != nil {
			return out, err
		}
		for _, sv := range vals {
			b := address(nil, ns, sv.Address.Key)
			if sv.Value != nil {
				b = append(append(b, `,"value":`...), sv.Value...)
			}
			b = append(append(b, `,"seq":`...), strconv.FormatInt(sv.Seq, 10)...)
			out.Values = append(out.Values, append(b, '}'))
		}
	}
	stats, err := s.GetStats()
	if err != nil {
		return out, err
	}
	out.Stats, _ = stats.MarshalJSON()
	out.NextSeq = s.NextSeq()
	return out, nil
}

// v3Commit is the commit both sides make after opening: an entry on the
// imported tip and an application value.
func v3Commit(parent *string) []json.RawMessage {
	p := "null"
	if parent != nil {
		p = strconv.Quote(*parent)
	}
	return []json.RawMessage{
		json.RawMessage(`{"kind":"entry","entry":{"id":"after-import","parentId":` + p + `,"type":"custom","customType":"probe","data":{"n":1}}}`),
		json.RawMessage(`{"kind":"value","op":"set","namespace":"app","key":"k","value":[1,2]}`),
	}
}

const v3Now = 1_767_000_000_000

func goV3(path string, content []byte, commitParent func(v3State) *string) (v3View, error) {
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return v3View{}, err
	}
	clock := envtest.NewClock(v3Now)
	e := env.Env{Clock: clock, FS: env.OSFS{}, IDs: env.NewUUIDv7(clock, nil), Executor: env.Goroutines{}}
	names := map[string]string{}
	s, err := jsonl.Open(e, path, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		return v3View{Error: renameUUIDs(err.Error(), map[string]string{})}, nil
	}
	defer s.Close()
	var out v3View
	st, err := goState(s)
	if err != nil {
		return out, err
	}
	out.State = st.view(names)
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, content) {
		out.State.Rewritten = string(after)
	}
	var ws []store.Write
	for _, raw := range v3Commit(commitParent(st)) {
		w, err := serve.DecodeWrite(raw)
		if err != nil {
			return out, err
		}
		ws = append(ws, w)
	}
	res, err := s.Commit(ws)
	if err != nil {
		out.Commit = "error: " + renameUUIDs(err.Error(), map[string]string{})
	} else {
		out.Commit = fmt.Sprint(res.FirstSeq, res.Seqs)
	}
	file, _ := os.ReadFile(path)
	out.After = renameUUIDs(string(file), names)
	if st, err = goState(s); err != nil {
		return out, err
	}
	out.StateAfter = st.view(names)
	return out, nil
}

func piV3(o *piOpener, path string, content []byte, files map[string][]byte) (v3View, error) {
	enc := map[string]string{}
	for p, b := range files {
		enc[p] = base64.StdEncoding.EncodeToString(b)
	}
	req := map[string]any{"path": path, "content": base64.StdEncoding.EncodeToString(content), "now": v3Now,
		"files": enc, "commit": v3Commit(ptr("$tip"))}
	var r v3Result
	if err := o.request(req, &r); err != nil {
		return v3View{}, err
	}
	if r.Helper {
		return v3View{}, errors.New(r.Error)
	}
	if !r.OK {
		return v3View{Error: renameUUIDs(r.Error, map[string]string{})}, nil
	}
	names := map[string]string{}
	out := v3View{State: r.State.view(names)}
	if r.Rewritten != "" {
		b, _ := base64.StdEncoding.DecodeString(r.Rewritten)
		out.State.Rewritten = string(b)
	}
	if r.Commit != nil {
		out.Commit = fmt.Sprint(r.Commit.FirstSeq, r.Commit.Seqs)
	} else {
		out.Commit = "error: " + renameUUIDs(r.CommitError, map[string]string{})
	}
	after, _ := base64.StdEncoding.DecodeString(r.After)
	out.After = renameUUIDs(string(after), names)
	out.StateAfter = r.StateAfter.view(names)
	return out, nil
}

func ptr(s string) *string { return &s }

// tipOf is the imported main branch tip (the entry the probe commit
// extends), or nil.
func tipOf(s v3State) *string {
	for _, raw := range s.Values {
		var v struct {
			Namespace string  `json:"namespace"`
			Key       string  `json:"key"`
			Value     *string `json:"value"`
		}
		if json.Unmarshal(raw, &v) == nil && v.Namespace == "pi.branch.tip" && v.Key == "main" {
			return v.Value
		}
	}
	return nil
}

// ---- v3 sessions from legacy-v3.ts's declarations ----

// jsISO is Date.prototype.toISOString for years 0–9999.
func jsISO(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

var v3Types = []string{"message", "message", "message", "custom", "custom_message", "branch_summary", "compaction",
	"model_change", "thinking_level_change", "active_tools_change", "session_info", "label"}

func usageJSON(t *rapid.T, label string) string {
	n := func(s string) int { return rapid.IntRange(0, 500).Draw(t, label+s) }
	u := fmt.Sprintf(`{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":%d`, n("in"), n("out"), n("cr"), n("cw"))
	if rapid.IntRange(0, 3).Draw(t, label+"r") == 0 {
		u += fmt.Sprintf(`,"reasoning":%d`, n("reason"))
	}
	return u + fmt.Sprintf(`,"totalTokens":%d,"cost":{"input":0.%03d,"output":0.%03d,"cacheRead":0,"cacheWrite":0,"total":0.%03d}}`,
		n("tt"), n("ci"), n("co"), n("ct"))
}

// v3Session draws a v3 file: its header and records, each record's parent
// an earlier record (the previous one mostly), and with probability
// damage a record broken in one of the ways pi's import names.
func v3Session(t *rapid.T) []byte {
	ts := rapid.Int64Range(1_600_000_000_000, 1_800_000_000_000).Draw(t, "ts")
	var b strings.Builder
	header := fmt.Sprintf(`{"type":"session","version":3,"id":"sess-%d","timestamp":%q,"cwd":"/work/p"`,
		rapid.IntRange(0, 99).Draw(t, "sid"), jsISO(ts))
	switch rapid.IntRange(0, 5).Draw(t, "parentSession") {
	case 0:
		header += `,"parentSession":"/sessions/parent.jsonl"`
	case 1:
		header += `,"parentSession":"/sessions/missing.jsonl"`
	case 2:
		header += `,"parentSession":"/sessions/parent3.jsonl"`
	}
	b.WriteString(header + "}\n")
	damage := rapid.IntRange(0, 3).Draw(t, "damaged") == 0
	n := rapid.IntRange(0, 14).Draw(t, "records")
	var ids []string
	for i := range n {
		id := fmt.Sprintf("r%d", i)
		parent := "null"
		if len(ids) > 0 {
			switch rapid.IntRange(0, 9).Draw(t, "parentKind") {
			case 0:
			case 1, 2:
				parent = strconv.Quote(rapid.SampledFrom(ids).Draw(t, "parent"))
			default:
				parent = strconv.Quote(ids[len(ids)-1])
			}
		}
		ts += rapid.Int64Range(0, 5000).Draw(t, "dt")
		stamp := strconv.Quote(jsISO(ts))
		switch rapid.IntRange(0, 9).Draw(t, "stampForm") {
		case 0: // an offset
			stamp = strconv.Quote(time.UnixMilli(ts).In(time.FixedZone("", 2*3600)).Format("2006-01-02T15:04:05.000-07:00"))
		case 1: // no fraction
			stamp = strconv.Quote(time.UnixMilli(ts).UTC().Format("2006-01-02T15:04:05Z"))
		case 2: // a date alone
			stamp = strconv.Quote(time.UnixMilli(ts).UTC().Format("2006-01-02"))
		}
		typ := rapid.SampledFrom(v3Types).Draw(t, "type")
		rec := fmt.Sprintf(`{"type":%q,"id":%q,"parentId":%s,"timestamp":%s`, typ, id, parent, stamp)
		pick := func(label string) string {
			if len(ids) == 0 {
				return id
			}
			return rapid.SampledFrom(ids).Draw(t, label)
		}
		switch typ {
		case "message":
			switch rapid.IntRange(0, 2).Draw(t, "role") {
			case 0:
				rec += `,"message":{"role":"user","content":"hi","timestamp":1}`
			case 1:
				rec += `,"message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"faux","provider":"faux","model":"m","usage":` +
					usageJSON(t, "u") + `,"stopReason":"stop","timestamp":2}`
			default:
				rec += `,"message":{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":false,"timestamp":3`
				if rapid.Bool().Draw(t, "toolUsage") {
					rec += `,"usage":` + usageJSON(t, "tu")
				}
				rec += `}`
			}
		case "custom":
			rec += `,"customType":"ext"`
			if rapid.Bool().Draw(t, "data") {
				rec += `,"data":{"x":[1,"2"]}`
			}
		case "custom_message":
			rec += `,"customType":"note","content":"text","display":true`
			if rapid.Bool().Draw(t, "details") {
				rec += `,"details":{"d":1}`
			}
		case "branch_summary":
			from := `"root"`
			if rapid.Bool().Draw(t, "fromEntry") {
				from = strconv.Quote(pick("from"))
			}
			rec += `,"fromId":` + from + `,"summary":` + rapid.SampledFrom([]string{`"went left"`, `""`}).Draw(t, "summary")
			if rapid.Bool().Draw(t, "bsUsage") {
				rec += `,"usage":` + usageJSON(t, "bu")
			}
			if rapid.Bool().Draw(t, "fromHook") {
				rec += `,"fromHook":true`
			}
		case "compaction":
			// firstKeptEntryId on the parent branch mostly.
			kept := pick("firstKept")
			if parent != "null" && rapid.IntRange(0, 3).Draw(t, "keptOnBranch") > 0 {
				kept, _ = strconv.Unquote(parent)
			}
			rec += fmt.Sprintf(`,"summary":"sum","firstKeptEntryId":%q,"tokensBefore":%d`, kept, rapid.IntRange(0, 9999).Draw(t, "tokens"))
			if rapid.Bool().Draw(t, "cUsage") {
				rec += `,"usage":` + usageJSON(t, "cu")
			}
		case "model_change":
			rec += `,"provider":` + rapid.SampledFrom([]string{`"faux"`, `""`}).Draw(t, "provider") + `,"modelId":"m1"`
		case "thinking_level_change":
			rec += `,"thinkingLevel":` + rapid.SampledFrom([]string{`"off"`, `"high"`, `"max"`, `"extreme"`}).Draw(t, "level")
		case "active_tools_change":
			rec += `,"activeToolNames":` + rapid.SampledFrom([]string{`["read","bash"]`, `[]`, `["x",1]`}).Draw(t, "tools")
		case "session_info":
			rec += `,"name":` + rapid.SampledFrom([]string{`"my session"`, `""`}).Draw(t, "name")
		case "label":
			rec += fmt.Sprintf(`,"targetId":%q`, pick("target"))
			if rapid.Bool().Draw(t, "hasLabel") {
				rec += `,"label":` + rapid.SampledFrom([]string{`"star"`, `""`}).Draw(t, "label")
			}
		}
		rec += "}"
		if damage && rapid.IntRange(0, 5).Draw(t, "damageHere") == 0 {
			switch rapid.IntRange(0, 7).Draw(t, "how") {
			case 0:
				rec = strings.Replace(rec, `"type":"`+typ+`"`, `"type":"register"`, 1)
			case 1:
				if len(ids) > 0 {
					rec = strings.Replace(rec, `"id":"`+id+`"`, `"id":"`+ids[0]+`"`, 1)
					id = ids[0]
				}
			case 2:
				rec = strings.Replace(rec, `"parentId":`+parent, `"parentId":"nowhere"`, 1)
			case 3:
				rec = rec[:len(rec)/2]
			case 4:
				rec = strings.Replace(rec, `"timestamp":`+stamp, `"timestamp":"yesterday"`, 1)
			case 5:
				rec = strings.Replace(rec, `"parentId":`+parent, `"parentId":"r`+strconv.Itoa(i+1)+`"`, 1) // a forward reference
			case 6:
				rec = strings.Replace(rec, `,"parentId":`+parent, ``, 1)
			case 7:
				rec = strings.Replace(rec, `"parentId":`+parent, `"parentId":"`+id+`"`, 1) // a cycle
			}
		}
		eol := "\n"
		if rapid.IntRange(0, 19).Draw(t, "crlf") == 0 {
			eol = "\r\n" // pi splits on \n; JSON.parse takes the \r as space
		}
		b.WriteString(rec + eol)
		ids = append(ids, id)
	}
	out := []byte(b.String())
	if damage && rapid.IntRange(0, 2).Draw(t, "torn") == 0 && len(out) > 0 {
		out = out[:len(out)-rapid.IntRange(1, min(40, len(out))).Draw(t, "cut")]
	}
	return out
}

// TestPiV3ImportAlike: see the comment at the top of this file. Budget:
// checksEnv (FRAMEPROOF_JSONLPI_CHECKS; 200 files by default, 20000 for
// the larger run). It logs how many files each outcome had.
func TestPiV3ImportAlike(t *testing.T) {
	o := startOpener(t)
	dir := t.TempDir()
	parent := []byte(`{"v":4,"kind":"header","id":"parent-id","storageVersion":1,"createdAt":5,"cwd":"/work/p"}` + "\n")
	files := map[string][]byte{"/sessions/parent.jsonl": parent,
		"/sessions/parent3.jsonl": []byte(`{"type":"session","version":3,"id":"parent3","timestamp":"2020-01-01T00:00:00Z","cwd":"/"}` + "\n")}
	tally := map[string]int{}
	rapid.Check(t, func(rt *rapid.T) {
		content := v3Session(rt)
		content = bytes.ReplaceAll(content, []byte("/sessions/"), []byte(dir+"/sessions/"))
		piFiles := map[string][]byte{}
		for p, b := range files {
			piFiles[strings.Replace(p, "/sessions/", dir+"/sessions/", 1)] = b
		}
		for p, b := range piFiles {
			_ = os.MkdirAll(filepath.Dir(p), 0o755)
			_ = os.WriteFile(p, b, 0o644)
		}
		path := filepath.Join(dir, "v3.jsonl")
		pv, err := piV3(o, path, content, piFiles)
		if err != nil {
			rt.Fatal(err)
		}
		gv, err := goV3(path, content, tipOf)
		if err != nil {
			rt.Fatal(err)
		}
		if d := cmp.Diff(pv, gv, cmpopts.EquateEmpty()); d != "" {
			rt.Fatalf("v3 file:\n%s\n(-pi +frameproof):\n%s", content, d)
		}
		outcome := "imported and upgraded"
		if pv.Error != "" {
			outcome = "refused: " + regexp.MustCompile(`\br?\d+\b|#\d+`).ReplaceAllString(pv.Error, "N")
		} else if strings.HasPrefix(pv.Commit, "error") {
			outcome = "imported, commit refused"
		}
		tally[outcome]++
	})
	keys := make([]string, 0, len(tally))
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%5d %s", tally[k], k)
	}
	if tally["imported and upgraded"] == 0 || len(tally) < 3 {
		t.Errorf("the generator missed an outcome: %v", tally)
	}
}
