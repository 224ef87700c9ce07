package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
)

// JSONLExpect is corpus/jsonl/<name>.expect.json, schema 1: what opening
// <name>.jsonl with impl/store/jsonl must do (the sidecar format of
// impl/store/jsonl's golden test).
type JSONLExpect struct {
	Schema        int               `json:"schema"`
	Description   string            `json:"description"`
	Error         string            `json:"error"`         // exact Open error; <path> stands for the file path
	Cause         string            `json:"cause"`         // errors.Unwrap(err).Error()
	FileAfterOpen *string           `json:"fileAfterOpen"` // exact file bytes after Open (torn tails repaired)
	NextFirstSeq  int64             `json:"nextFirstSeq"`  // FirstSeq of the next commit
	Survivors     []json.RawMessage `json:"survivors"`     // surviving records in seq order
}

// CheckJSONL opens a copy of the golden file in a temporary directory with
// the production environment and checks the sidecar's expectations. Entry
// and usage survivors are compared by seq, values and list elements by seq
// and value bytes at every address the file mentions; impl/store/jsonl's own
// golden test compares whole records.
func CheckJSONL(file, expectFile, tmpDir string) error {
	content, err := readCorpusFile(file)
	if err != nil {
		return err
	}
	raw, err := readCorpusFile(expectFile)
	if err != nil {
		return fmt.Errorf("sidecar: %w", err)
	}
	var exp JSONLExpect
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&exp); err != nil {
		return fmt.Errorf("sidecar %s: %w", expectFile, err)
	}
	if exp.Schema != 1 {
		return fmt.Errorf("sidecar %s: schema %d, want 1", expectFile, exp.Schema)
	}
	path := filepath.Join(tmpDir, "golden.jsonl")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return err
	}
	s, err := jsonl.Open(env.Production(), path, jsonl.Options{Sync: jsonl.SyncNever})
	if s != nil {
		defer s.Close()
	}
	if exp.FileAfterOpen != nil {
		after, rerr := readCorpusFile(path)
		if rerr != nil {
			return rerr
		}
		if d := diffBytes("file after open", []byte(*exp.FileAfterOpen), after); d != "" {
			return errors.New(d)
		}
	}
	if exp.Error != "" {
		want := strings.ReplaceAll(exp.Error, "<path>", path)
		if err == nil || err.Error() != want {
			return fmt.Errorf("open: want error %q, got %v", want, err)
		}
		if exp.Cause != "" {
			if c := errors.Unwrap(err); c == nil || c.Error() != exp.Cause {
				return fmt.Errorf("open: want cause %q, got %v", exp.Cause, c)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	if err := checkSurvivors(s, content, exp.Survivors); err != nil {
		return err
	}
	res, err := s.Commit(nil)
	if err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if res.FirstSeq != exp.NextFirstSeq {
		return fmt.Errorf("next commit's first seq %d, want %d", res.FirstSeq, exp.NextFirstSeq)
	}
	return nil
}

// survivor is the comparable part of a surviving record.
type survivor struct {
	Kind  string `json:"kind"`
	Seq   int64  `json:"seq"`
	Value string `json:"-"`
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func checkSurvivors(s *jsonl.Store, content []byte, expected []json.RawMessage) error {
	var want []survivor
	for i, r := range expected {
		var rec struct {
			Kind  string          `json:"kind"`
			Seq   int64           `json:"seq"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(r, &rec); err != nil {
			return fmt.Errorf("sidecar survivors[%d]: %w", i, err)
		}
		want = append(want, survivor{Kind: rec.Kind, Seq: rec.Seq, Value: compact(rec.Value)})
	}
	var got []survivor
	entries, err := s.Entries()
	if err != nil {
		return err
	}
	for _, e := range entries {
		got = append(got, survivor{Kind: "entry", Seq: e.Seq})
	}
	usage, err := s.Usage()
	if err != nil {
		return err
	}
	for _, u := range usage {
		got = append(got, survivor{Kind: "usage", Seq: u.Seq})
	}
	for _, a := range mentionedAddresses(content) {
		if a.Kind == store.KindValue {
			v, err := s.GetValue(a)
			if err != nil {
				return fmt.Errorf("get %s/%s: %w", a.Namespace, a.Key, err)
			}
			if v != nil {
				got = append(got, survivor{Kind: "value", Seq: v.Seq, Value: compact(v.Value)})
			}
			continue
		}
		els, err := s.ReadList(a, store.ReadOptions{Limit: 10000})
		if err != nil {
			return fmt.Errorf("read %s/%s: %w", a.Namespace, a.Key, err)
		}
		for _, el := range els {
			got = append(got, survivor{Kind: "list", Seq: el.Seq, Value: compact(el.Value)})
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Seq < got[j].Seq })
	for i := range want {
		if want[i].Kind == "entry" || want[i].Kind == "usage" {
			want[i].Value = ""
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		return fmt.Errorf("survivors (kind seq value):\n  want %v\n  got  %v", want, got)
	}
	return nil
}

// mentionedAddresses lists every value and list address written anywhere in
// the file (unparsable lines are skipped), in first-seen order.
func mentionedAddresses(content []byte) []store.Address {
	seen := map[store.Address]bool{}
	var out []store.Address
	note := func(raw json.RawMessage) {
		var rec struct {
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Key       string `json:"key"`
		}
		if json.Unmarshal(raw, &rec) != nil || (rec.Kind != "value" && rec.Kind != "list") {
			return
		}
		a := store.Address{Namespace: rec.Namespace, Key: rec.Key, Kind: store.KindValue}
		if rec.Kind == "list" {
			a.Kind = store.KindList
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	for _, line := range bytes.Split(content, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && line[0] == '[' {
			var arr []json.RawMessage
			if json.Unmarshal(line, &arr) == nil {
				for _, r := range arr {
					note(r)
				}
			}
			continue
		}
		note(line)
	}
	return out
}

// RunJSONLFamily checks every corpus/jsonl/*.jsonl against its sidecar.
func RunJSONLFamily(root string) ([]Outcome, error) {
	files, err := globSorted(root, "jsonl", "*.jsonl")
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "frameproof-corpus-jsonl-")
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := make([]Outcome, len(files))
	for i, f := range files {
		base := strings.TrimSuffix(f, ".jsonl")
		out[i].Name = filepath.Base(base)
		dir := filepath.Join(tmp, out[i].Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("corpus: %w", err)
		}
		out[i].Err = CheckJSONL(f, base+".expect.json", dir)
	}
	return out, nil
}
