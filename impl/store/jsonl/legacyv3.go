package jsonl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
)

// pi's v3 session import (pi-agent-core 0.85.1 session/jsonl/legacy-v3.ts,
// called by storage.ts JsonlStorage.open → openLegacyV3). Opening a v3 file
// changes nothing on disk: its records are normalized in memory into v4
// committed writes (entries with reminted UUIDv7 ids, then the session name,
// entry labels, the main branch tip and, when the branch selects a model and
// a thinking level, the main lane's config and state), and getStats reports
// the usage summed from the v3 records. The first non-empty commit upgrades
// the file atomically (tmp + rename): the normalized v4 header with nextSeq,
// every imported write on its own line, then one transaction holding a usage
// adjustment row carrying the imported usage followed by the caller's writes.

// LegacyV3Error is an error pi's normalizeLegacyV3Records (or what it calls)
// throws; JsonlStorage.open passes it on unwrapped, so Error() is pi's whole
// message.
type LegacyV3Error struct{ Msg string }

func (e *LegacyV3Error) Error() string { return e.Msg }

func legacyErr(format string, args ...any) error {
	return &LegacyV3Error{Msg: fmt.Sprintf(format, args...)}
}

// legacyV3 is a store whose file is still a v3 session (pi's backing
// {kind: "v3", importedUsage, baselineWrites}).
type legacyV3 struct {
	usage    store.UsageTotals
	writes   []store.CommittedWrite // the imported writes
	baseline [][]byte               // each imported write's line, in pi's key order
}

// isLegacyV3Header is pi's isLegacyV3SessionHeader (jsonl/codec.ts).
func isLegacyV3Header(h pi.JSONValue) bool {
	if h.Kind() != pi.Object {
		return false
	}
	typ, version, ts, parent := h.Prop("type"), h.Prop("version"), h.Prop("timestamp"), h.Prop("parentSession")
	return typ.Kind() == pi.String && typ.Str() == "session" &&
		version.Kind() == pi.Number && version.Number() == 3 &&
		h.Prop("id").Kind() == pi.String && h.Prop("cwd").Kind() == pi.String &&
		ts.Kind() == pi.String && !math.IsNaN(dateParse(ts.Str())) &&
		(parent.IsUndefined() || parent.Kind() == pi.String)
}

// legacyHeader is normalizeLegacyV3Header: pi's metadataFromLegacyV3Header
// laid out as a v4 header (v, kind, id, createdAt, storageVersion, cwd,
// then parentSessionId or legacyParentSessionPath). A parent path whose
// first line is a session header becomes its id; otherwise the path is kept.
func legacyHeader(fsys env.FS, h pi.JSONValue) Header {
	str := func(s string) json.RawMessage { return store.AppendJSString(nil, s) }
	num := func(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }
	out := Header{ID: h.Prop("id").Str(), StorageVersion: StorageVersion,
		CreatedAt: int64(dateParse(h.Prop("timestamp").Str())), Cwd: h.Prop("cwd").Str()}
	out.fields = []store.ObjectField{
		{Key: "v", Value: num(FormatVersion)},
		{Key: "kind", Value: str("header")},
		{Key: "id", Value: str(out.ID)},
		{Key: "createdAt", Value: num(out.CreatedAt)},
		{Key: "storageVersion", Value: num(StorageVersion)},
		{Key: "cwd", Value: str(out.Cwd)},
	}
	if parent := h.Prop("parentSession"); parent.Kind() == pi.String {
		path := parent.Str()
		if id, ok := parentSessionID(fsys, path); ok {
			out.ParentSessionID = &id
			out.fields = append(out.fields, store.ObjectField{Key: "parentSessionId", Value: str(id)})
		} else {
			out.LegacyParentSessionPath = &path
			out.fields = append(out.fields, store.ObjectField{Key: "legacyParentSessionPath", Value: str(path)})
		}
	}
	return out
}

// parentSessionID is resolveLegacyV3ParentSessionId: the id in the first
// line of path, when that line is a v4 or v3 session header.
func parentSessionID(fsys env.FS, path string) (string, bool) {
	var head []byte
	var err error
	if d, ok := fsys.(env.DirFS); ok {
		head, err = d.ReadHead(path, maxLegacyParentHead)
	} else {
		head, err = env.ReadAtMost(fsys, path, 0)
	}
	if err != nil {
		return "", false
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	if h, err := parseHeader(line); err == nil {
		return h.ID, true
	}
	if v, err := pi.ParseJSON(string(line)); err == nil && isLegacyV3Header(v) {
		return v.Prop("id").Str(), true
	}
	return "", false
}

const maxLegacyParentHead = 1 << 20

// legacyRecord is one parsed v3 record.
type legacyRecord struct {
	v   pi.JSONValue
	typ string
	id  string
}

func (r *legacyRecord) parent() pi.JSONValue { return r.v.Prop("parentId") }

var legacyTypes = map[string]bool{"message": true, "custom": true, "custom_message": true, "branch_summary": true,
	"compaction": true, "model_change": true, "thinking_level_change": true, "active_tools_change": true,
	"session_info": true, "label": true}

// parseLegacyRecord is pi's parseLegacyV3Entry. frameproof additionally
// requires a string id (pi keys its maps by any JSON value).
func parseLegacyRecord(line []byte, lineNo int) (legacyRecord, error) {
	v, err := pi.ParseJSON(string(line))
	if err != nil {
		return legacyRecord{}, legacyErr("Invalid legacy v3 JSONL record at line %d: not valid JSON", lineNo)
	}
	if v.Kind() == pi.Null {
		return legacyRecord{}, legacyErr("Cannot read properties of null (reading 'type')")
	}
	typ := v.Prop("type")
	if typ.Kind() != pi.String || !legacyTypes[typ.Str()] {
		return legacyRecord{}, legacyErr("Unsupported legacy v3 record type at line %d: %s", lineNo, pi.JSString(typ))
	}
	id := v.Prop("id")
	if id.Kind() != pi.String {
		return legacyRecord{}, fmt.Errorf("jsonl: legacy v3 record at line %d: id is not a string", lineNo)
	}
	return legacyRecord{v: v, typ: typ.Str(), id: id.Str()}, nil
}

func retained(typ string) bool {
	switch typ {
	case "model_change", "thinking_level_change", "active_tools_change", "session_info", "label":
		return false
	}
	return true
}

// resolver is pi's RetainedIdResolver.
type resolver struct {
	byID     map[string]*legacyRecord
	reminted map[string]string
	resolved map[string]*string
}

// resolve maps a legacy reference to its reminted id, or to its nearest
// retained ancestor's; nil for null or no retained ancestor.
func (r *resolver) resolve(ref pi.JSONValue) (*string, error) {
	var traversed []string
	visited := map[string]bool{}
	var out *string
	cur := ref
	for cur.Kind() != pi.Null {
		if cur.Kind() != pi.String {
			return nil, legacyErr("Missing legacy v3 entry reference: %s", pi.JSString(cur))
		}
		id := cur.Str()
		if m, ok := r.reminted[id]; ok {
			out = &m
			break
		}
		if res, ok := r.resolved[id]; ok {
			out = res
			break
		}
		if visited[id] {
			return nil, legacyErr("Cycle in legacy v3 parent chain at entry: %s", id)
		}
		visited[id] = true
		e := r.byID[id]
		if e == nil {
			return nil, legacyErr("Missing legacy v3 entry reference: %s", id)
		}
		traversed = append(traversed, id)
		cur = e.parent()
	}
	for _, id := range traversed {
		r.resolved[id] = out
	}
	return out, nil
}

func idValue(id *string) pi.JSONValue {
	if id == nil {
		return pi.NullValue()
	}
	return pi.StringValue(*id)
}

// branchSummaryFrom is resolveBranchSummaryFromId: "root" is null.
func (r *resolver) branchSummaryFrom(from pi.JSONValue) (pi.JSONValue, error) {
	if from.Kind() == pi.String && from.Str() == "root" {
		return pi.NullValue(), nil
	}
	id, err := r.resolve(from)
	return idValue(id), err
}

// jsTruthy is JS truthiness of a JSON value.
func jsTruthy(v pi.JSONValue) bool {
	switch v.Kind() {
	case pi.Bool:
		return v.Bool()
	case pi.Number:
		return v.Number() != 0 && !math.IsNaN(v.Number())
	case pi.String:
		return v.Str() != ""
	case pi.Array, pi.Object:
		return true
	}
	return false
}

func obj(kv ...any) pi.JSONValue {
	o := pi.NewObject()
	for i := 0; i < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1].(pi.JSONValue))
	}
	return pi.ObjectValue(o)
}

// dateValue is `typeof t === "number" ? t : new Date(t).getTime()`.
func dateValue(t pi.JSONValue) pi.JSONValue {
	if t.Kind() == pi.Number {
		return t
	}
	return pi.NumberValue(dateParse(pi.JSString(t)))
}

// importedCustomMessage is pi's importedCustomMessage.
func importedCustomMessage(e *legacyRecord) pi.JSONValue {
	v := e.v
	return obj("role", pi.StringValue("custom"), "customType", v.Prop("customType"), "content", v.Prop("content"),
		"details", v.Prop("details"), "display", v.Prop("display"),
		"timestamp", pi.NumberValue(dateParse(pi.JSString(v.Prop("timestamp")))))
}

// contextMessages is pi's projectContextMessages.
func (r *resolver) contextMessages(e *legacyRecord) ([]pi.JSONValue, error) {
	v := e.v
	switch e.typ {
	case "message":
		return []pi.JSONValue{v.Prop("message")}, nil
	case "custom_message":
		return []pi.JSONValue{importedCustomMessage(e)}, nil
	case "branch_summary":
		if !jsTruthy(v.Prop("summary")) {
			return nil, nil
		}
		from, err := r.branchSummaryFrom(v.Prop("fromId"))
		if err != nil {
			return nil, err
		}
		return []pi.JSONValue{obj("role", pi.StringValue("branchSummary"), "summary", v.Prop("summary"),
			"fromId", from, "timestamp", dateValue(v.Prop("timestamp")))}, nil
	case "compaction":
		return []pi.JSONValue{obj("role", pi.StringValue("compactionSummary"), "summary", v.Prop("summary"),
			"tokensBefore", v.Prop("tokensBefore"), "timestamp", dateValue(v.Prop("timestamp")))}, nil
	}
	return nil, nil
}

// retainedTail is pi's materializeRetainedTail.
func (r *resolver) retainedTail(c *legacyRecord) (pi.JSONValue, error) {
	var reversed []*legacyRecord
	visited := map[string]bool{}
	firstKept := c.v.Prop("firstKeptEntryId")
	cur := c.parent()
	for cur.Kind() != pi.Null {
		id := pi.JSString(cur)
		if cur.Kind() == pi.String && visited[id] {
			return pi.JSONValue{}, legacyErr("Cycle in legacy v3 parent chain at entry: %s", id)
		}
		var e *legacyRecord
		if cur.Kind() == pi.String {
			visited[id] = true
			e = r.byID[id]
		}
		if e == nil {
			return pi.JSONValue{}, legacyErr("Missing legacy v3 parent entry: %s", id)
		}
		reversed = append(reversed, e)
		if firstKept.Kind() == pi.String && firstKept.Str() == id {
			var msgs []pi.JSONValue
			for i := len(reversed) - 1; i >= 0; i-- {
				m, err := r.contextMessages(reversed[i])
				if err != nil {
					return pi.JSONValue{}, err
				}
				msgs = append(msgs, m...)
			}
			return pi.ArrayValue(msgs), nil
		}
		cur = e.parent()
	}
	return pi.JSONValue{}, legacyErr("Legacy v3 compaction %s firstKeptEntryId is not on its parent branch: %s",
		c.id, pi.JSString(firstKept))
}

// normalizeEntry is pi's normalizeRetainedEntry: the committed entry write,
// in pi's key order (kind, id, parentId, seq, timestamp, type, ...).
func (r *resolver) normalizeEntry(e *legacyRecord, seq int64) (pi.JSONValue, error) {
	v := e.v
	id, err := r.resolve(pi.StringValue(e.id))
	if err != nil {
		return pi.JSONValue{}, err
	}
	if id == nil {
		return pi.JSONValue{}, legacyErr("Legacy v3 entry reference has no retained ancestor: %s", e.id)
	}
	parent, err := r.resolve(e.parent())
	if err != nil {
		return pi.JSONValue{}, err
	}
	out := obj("kind", pi.StringValue("entry"), "id", pi.StringValue(*id), "parentId", idValue(parent),
		"seq", pi.NumberValue(float64(seq)), "timestamp", pi.NumberValue(dateParse(pi.JSString(v.Prop("timestamp")))))
	o := out.ObjectValue()
	fromHook := v.Prop("fromHook")
	if fromHook.Kind() == pi.Undefined || fromHook.Kind() == pi.Null {
		fromHook = pi.BoolValue(false)
	}
	switch e.typ {
	case "message":
		o.Set("type", pi.StringValue("message"))
		o.Set("message", v.Prop("message"))
	case "custom_message":
		o.Set("type", pi.StringValue("message"))
		o.Set("message", importedCustomMessage(e))
	case "branch_summary":
		from, err := r.branchSummaryFrom(v.Prop("fromId"))
		if err != nil {
			return pi.JSONValue{}, err
		}
		o.Set("type", pi.StringValue("branch_summary"))
		o.Set("fromId", from)
		o.Set("summary", v.Prop("summary"))
		o.Set("details", v.Prop("details"))
		o.Set("usage", v.Prop("usage"))
		o.Set("fromHook", fromHook)
	case "compaction":
		tail, err := r.retainedTail(e)
		if err != nil {
			return pi.JSONValue{}, err
		}
		o.Set("type", pi.StringValue("compaction"))
		o.Set("summary", v.Prop("summary"))
		o.Set("retainedTail", tail)
		o.Set("tokensBefore", v.Prop("tokensBefore"))
		o.Set("details", v.Prop("details"))
		o.Set("usage", v.Prop("usage"))
		o.Set("fromHook", fromHook)
	default:
		o.Set("type", pi.StringValue("custom"))
		o.Set("customType", v.Prop("customType"))
		o.Set("data", v.Prop("data"))
	}
	return out, nil
}

var thinkingLevels = map[string]bool{"off": true, "minimal": true, "low": true, "medium": true, "high": true, "xhigh": true, "max": true}

// selectedConfiguration is pi's selectedConfiguration: the nearest model,
// thinking level and active tools on the branch ending at selected.
func (r *resolver) selectedConfiguration(selected pi.JSONValue) (pi.JSONValue, bool, error) {
	var model, thinking, tools pi.JSONValue
	sawModel, sawThinking, sawTools := false, false, false
	visited := map[string]bool{}
	cur := selected
	for cur.Kind() != pi.Null && (!sawModel || !sawThinking || !sawTools) {
		id := pi.JSString(cur)
		if cur.Kind() == pi.String && visited[id] {
			return pi.JSONValue{}, false, legacyErr("Cycle in legacy v3 parent chain at entry: %s", id)
		}
		var e *legacyRecord
		if cur.Kind() == pi.String {
			visited[id] = true
			e = r.byID[id]
		}
		if e == nil {
			return pi.JSONValue{}, false, legacyErr("Missing legacy v3 entry reference: %s", id)
		}
		v := e.v
		switch {
		case e.typ == "model_change" && !sawModel:
			sawModel = true
			p, m := v.Prop("provider"), v.Prop("modelId")
			if p.Kind() == pi.String && p.Str() != "" && m.Kind() == pi.String && m.Str() != "" {
				model = obj("provider", p, "modelId", m)
			}
		case e.typ == "thinking_level_change" && !sawThinking:
			sawThinking = true
			if l := v.Prop("thinkingLevel"); l.Kind() == pi.String && thinkingLevels[l.Str()] {
				thinking = l
			}
		case e.typ == "active_tools_change" && !sawTools:
			sawTools = true
			if names := v.Prop("activeToolNames"); names.Kind() == pi.Array {
				all := true
				for _, n := range names.Array() {
					all = all && n.Kind() == pi.String
				}
				if all {
					tools = pi.ArrayValue(append([]pi.JSONValue{}, names.Array()...))
				}
			}
		}
		cur = e.parent()
	}
	if model.IsUndefined() || thinking.IsUndefined() {
		return pi.JSONValue{}, false, nil
	}
	if tools.IsUndefined() {
		tools = pi.ArrayValue([]pi.JSONValue{})
	}
	return obj("model", model, "thinkingLevel", thinking, "activeToolNames", tools), true, nil
}

func valueWrite(seq int64, ns, key string, value pi.JSONValue) pi.JSONValue {
	return obj("kind", pi.StringValue("value"), "op", pi.StringValue("set"), "seq", pi.NumberValue(float64(seq)),
		"namespace", pi.StringValue(ns), "key", pi.StringValue(key), "value", value)
}

// legacyImport is what normalizeLegacyV3Records returns, as frameproof
// replays it.
type legacyImport struct {
	writes []store.CommittedWrite
	lines  [][]byte
	usage  store.UsageTotals
}

// normalizeLegacyV3 is pi's normalizeLegacyV3Records over the complete
// record lines after the header (line 2 on); ids mints the reminted ids.
func normalizeLegacyV3(lines [][]byte, ids env.IDs) (*legacyImport, error) {
	records := make([]legacyRecord, len(lines))
	for i, line := range lines {
		r, err := parseLegacyRecord(line, i+2)
		if err != nil {
			return nil, err
		}
		records[i] = r
	}
	byID := make(map[string]*legacyRecord, len(records))
	for i := range records {
		if byID[records[i].id] != nil {
			return nil, legacyErr("Duplicate legacy v3 entry id: %s", records[i].id)
		}
		byID[records[i].id] = &records[i]
	}
	res := &resolver{byID: byID, reminted: map[string]string{}, resolved: map[string]*string{}}
	var kept []*legacyRecord
	for i := range records {
		if !retained(records[i].typ) {
			continue
		}
		e := &records[i]
		id, err := remint(ids, dateParse(pi.JSString(e.v.Prop("timestamp"))))
		if err != nil {
			return nil, err
		}
		res.reminted[e.id] = id
		kept = append(kept, e)
	}
	var out []pi.JSONValue
	for i, e := range kept {
		w, err := res.normalizeEntry(e, int64(i+1))
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	seq := func() int64 { return int64(len(out) + 1) }
	// normalizeLegacyV3Values
	var latestInfo *legacyRecord
	for i := range records {
		if records[i].typ == "session_info" {
			latestInfo = &records[i]
		}
	}
	if latestInfo != nil && jsTruthy(latestInfo.v.Prop("name")) {
		out = append(out, valueWrite(seq(), "pi.session.name", "", latestInfo.v.Prop("name")))
	}
	var labelOrder []string
	labels := map[string]pi.JSONValue{}
	for i := range records {
		if records[i].typ != "label" {
			continue
		}
		target, err := res.resolve(records[i].v.Prop("targetId"))
		if err != nil {
			return nil, err
		}
		if target == nil {
			continue
		}
		if label := records[i].v.Prop("label"); jsTruthy(label) {
			if _, ok := labels[*target]; !ok {
				labelOrder = append(labelOrder, *target)
			}
			labels[*target] = label
		} else if _, ok := labels[*target]; ok {
			delete(labels, *target)
			for j, t := range labelOrder {
				if t == *target {
					labelOrder = append(labelOrder[:j:j], labelOrder[j+1:]...)
					break
				}
			}
		}
	}
	for _, t := range labelOrder {
		out = append(out, valueWrite(seq(), "pi.entry.label", t, labels[t]))
	}
	final := pi.NullValue()
	tip := pi.NullValue()
	if n := len(records); n > 0 {
		final = pi.StringValue(records[n-1].id)
		id, err := res.resolve(final)
		if err != nil {
			return nil, err
		}
		tip = idValue(id)
	}
	out = append(out, valueWrite(seq(), "pi.branch.tip", "main", tip))
	config, ok, err := res.selectedConfiguration(final)
	if err != nil {
		return nil, err
	}
	if ok {
		out = append(out, valueWrite(seq(), "pi.lane.config", "main", config))
		out = append(out, valueWrite(seq(), "pi.lane.state", "main", obj("currentOperationId", pi.NullValue(),
			"lastOperationId", pi.NullValue(), "inbox", pi.ArrayValue([]pi.JSONValue{}))))
	}
	// aggregateImportedUsage
	imp := &legacyImport{}
	for i := range records {
		v := records[i].v
		var usage pi.JSONValue
		switch records[i].typ {
		case "message":
			msg := v.Prop("message")
			if msg.Kind() == pi.Undefined || msg.Kind() == pi.Null {
				return nil, legacyErr("Cannot read properties of %s (reading 'role')", pi.JSString(msg))
			}
			if role := msg.Prop("role"); role.Kind() == pi.String && (role.Str() == "assistant" || role.Str() == "toolResult") {
				usage = msg.Prop("usage")
			}
		case "compaction", "branch_summary":
			usage = v.Prop("usage")
		}
		if usage.IsUndefined() {
			continue
		}
		if usage.Kind() == pi.Null {
			return nil, legacyErr("Cannot read properties of null (reading 'input')")
		}
		if c := usage.Prop("cost"); c.Kind() == pi.Undefined || c.Kind() == pi.Null {
			return nil, legacyErr("Cannot read properties of %s (reading 'input')", pi.JSString(c))
		}
		imp.usage.Add(usage.AppendJSON(nil))
	}
	for _, w := range out {
		line := w.AppendJSON(nil)
		p := &lineParser{}
		ws, _, err := p.parse(line)
		if err != nil {
			return nil, fmt.Errorf("jsonl: legacy v3 import: %w", err)
		}
		imp.writes = append(imp.writes, ws...)
		imp.lines = append(imp.lines, line)
	}
	return imp, nil
}

// remint is uuidv7(timestampMs) with a supplied timestamp: a fresh id from
// ids whose 48-bit time field is timestampMs.
func remint(ids env.IDs, ms float64) (string, error) {
	const maxTS = 0xffffffffffff
	if math.IsNaN(ms) || ms != math.Trunc(ms) || ms < 0 || ms > maxTS {
		return "", legacyErr("UUIDv7 timestamp must be an integer between 0 and %d", int64(maxTS))
	}
	if ids == nil {
		return "", fmt.Errorf("jsonl: legacy v3 import: no id source")
	}
	id := []byte(ids.NewID())
	hex := fmt.Sprintf("%012x", int64(ms))
	if len(id) != 36 {
		return "", fmt.Errorf("jsonl: legacy v3 import: id source minted %q, not a UUID", id)
	}
	copy(id[0:8], hex[0:8])
	copy(id[9:13], hex[8:12])
	return string(id), nil
}

// loadLegacyV3 is pi's JsonlStorage.openLegacyV3: normalize the complete
// record lines of a v3 file and replay them as committed writes, leaving
// the file untouched. rest is the content after the header line, ending in
// a newline or empty (a torn tail already dropped).
func (s *Store) loadLegacyV3(e env.Env, headerLine, rest []byte) error {
	hv, err := pi.ParseJSON(string(headerLine))
	if err != nil {
		return &StorageError{Path: s.path, What: "invalid header", Cause: errHeaderNotJSON}
	}
	var lines [][]byte
	for len(rest) > 0 {
		nl := bytes.IndexByte(rest, '\n')
		lines = append(lines, rest[:nl])
		rest = rest[nl+1:]
	}
	imp, err := normalizeLegacyV3(lines, e.IDs)
	if err != nil {
		return err
	}
	header := legacyHeader(e.FS, hv).withNextSeq(int64(len(imp.writes) + 1))
	s.header = header
	if err := s.validate(imp.writes); err != nil {
		return piCommitError(err)
	}
	s.state.Apply(imp.writes)
	if err := s.state.AdvanceNextSeq(*header.NextSeq); err != nil {
		return err
	}
	s.legacy = &legacyV3{usage: imp.usage, writes: imp.writes, baseline: imp.lines}
	return nil
}

// upgradeLegacyV3 is pi's upgradeLegacyV3ToV4 for the first non-empty
// commit r of a v3-backed store: one usage adjustment row carrying the
// imported usage ({source: "v3-import"}) ahead of the caller's writes, the
// whole file rewritten atomically, and the caller's seqs returned without
// the adjustment's. Only the leader calls it.
func (s *Store) upgradeLegacyV3(r *request) {
	ts := s.clock.Now().UnixMilli()
	next := s.state.NextSeq()
	if s.ids == nil {
		r.err = fmt.Errorf("jsonl: upgrade %s to v4: no id source", s.path)
		return
	}
	row := []byte(`{"id":`)
	row = store.AppendJSString(row, s.ids.NewID())
	row = append(row, `,"usage":`...)
	usage, _ := s.legacy.usage.MarshalJSON()
	row = append(row, usage...)
	row = append(row, `,"adjustment":true,"details":{"source":"v3-import"}}`...)
	var id struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(row, &id)
	// the caller's writes are prepared alone, so that a shape error names
	// the write by its index in them, not behind the adjustment row
	adjustment, err := store.Prepare([]store.Write{{Kind: store.WriteUsage, Usage: &store.UsageRow{ID: id.ID, Raw: row}}}, next, ts)
	var committed []store.CommittedWrite
	if err == nil {
		var theirs []store.CommittedWrite
		theirs, err = store.Prepare(r.writes, next+1, ts)
		committed = append(adjustment, theirs...)
	}
	if err == nil {
		err = store.ValidateCommitted(committed, next, s.state)
	}
	if err == nil {
		err = store.CheckUsageTotals(committed)
	}
	if err != nil {
		r.err = err
		return
	}
	header := s.header.withNextSeq(next + int64(len(committed)))
	content := append(header.encode(), '\n')
	sizes := make([]int64, 0, len(s.legacy.baseline)+len(committed))
	for _, line := range s.legacy.baseline {
		content = append(append(content, line...), '\n')
		sizes = append(sizes, int64(len(line))+1)
	}
	txSizes := make([]int64, len(committed))
	content = append(appendTransaction(content, committed, txSizes), '\n')
	if s.dryRun != nil {
		r.err = fmt.Errorf("jsonl: upgrade %s to v4: a dry-run store writes nothing", s.path)
		return
	}
	if renamed, err := publish(s.fs, s.path, content, s.opts.Sync == SyncAlways); err != nil {
		if renamed {
			s.mu.Lock()
			s.failed = err
			s.mu.Unlock()
		}
		r.err = err
		return
	}
	f, err := s.fs.OpenAppend(s.path)
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.file
	s.file = f
	if err != nil {
		s.failed = fmt.Errorf("reopen after the v3 upgrade: %w", err)
		s.file = nil
	}
	if old != nil {
		_ = old.Close()
	}
	baseline := s.legacy.writes
	s.state.Apply(committed)
	s.header = header
	s.legacy = nil
	s.size = int64(len(content))
	s.dead = 0
	s.live = newLiveBytes()
	s.account(baseline, sizes)
	s.account(committed, txSizes)
	s.stats.Commits++
	res := store.ResultOf(committed, next, ts)
	res.FirstSeq++
	res.Seqs = res.Seqs[1:]
	r.res = res
	if err != nil {
		r.err = fmt.Errorf("Failed to append JSONL storage %s: %w", s.path, s.failed)
	}
}
