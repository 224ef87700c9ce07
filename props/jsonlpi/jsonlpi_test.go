// Package jsonlpi holds one file format's two implementations to each
// other: every session frameproof's JSONL writer (impl/store/jsonl)
// produces, whole, torn, or corrupted byte by byte, opens in pi's own
// JsonlStorage (pi-agent-core 0.85.1, session/jsonl/storage.js
// JsonlStorage.open) with the same entries, values, lists, usage, stats and
// next seq as in frameproof's jsonl.Open, and the same repaired file after
// a torn tail; or both refuse it, with pi's exact message (and cause) where
// frameproof's open claims pi's ("Invalid JSONL storage <path>: ...",
// "Session <id> uses unsupported storage version <v>").
package jsonlpi

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/impl/store/serve"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// piOpener is one long-lived node process running
// corpus/peers/pi-agent-core/jsonl-open.mjs: every file of a test goes
// through it, one request line each.
type piOpener struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  *bufio.Writer
	out *bufio.Reader
	id  int
}

func startOpener(t *testing.T) *piOpener {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	cmd := procgroup.CommandContext(t.Context(), node, filepath.Join(dir, "jsonl-open.mjs"))
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return &piOpener{cmd: cmd, in: bufio.NewWriter(in), out: bufio.NewReaderSize(out, 1<<20)}
}

// piResult is jsonl-open.mjs's answer.
type piResult struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error"`
	Cause     string `json:"cause"`
	Helper    bool   `json:"helper"`
	Rewritten string `json:"rewritten"`
	State     struct {
		Entries []json.RawMessage `json:"entries"`
		Usage   []json.RawMessage `json:"usage"`
		Values  []json.RawMessage `json:"values"`
		Lists   []json.RawMessage `json:"lists"`
		Stats   json.RawMessage   `json:"stats"`
		NextSeq int64             `json:"nextSeq"`
	} `json:"state"`
}

func (o *piOpener) open(path string, content []byte) (piResult, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.id++
	req, _ := json.Marshal(map[string]any{"id": o.id, "path": path, "content": base64.StdEncoding.EncodeToString(content)})
	if _, err := o.in.Write(append(req, '\n')); err != nil {
		return piResult{}, err
	}
	if err := o.in.Flush(); err != nil {
		return piResult{}, err
	}
	line, err := o.out.ReadBytes('\n')
	if err != nil {
		return piResult{}, fmt.Errorf("jsonl-open.mjs: %w", err)
	}
	var r piResult
	if err := json.Unmarshal(line, &r); err != nil {
		return r, fmt.Errorf("jsonl-open.mjs printed %.300s", line)
	}
	if r.Helper {
		return r, errors.New(r.Error)
	}
	return r, nil
}

// view is one implementation's opened session in one comparable form:
// every row as pi's JSON.stringify writes it, sorted where pi's order is
// not a storage order (values and lists).
type view struct {
	Entries   []string
	Usage     []string
	Values    []string
	Lists     []string
	Stats     string
	NextSeq   int64
	Rewritten string // the file after a torn-tail repair ("" when untouched)
}

func canon(raw []byte) string {
	v, err := pi.ParseJSON(string(raw))
	if err != nil {
		return "!unparsable " + string(raw)
	}
	return string(v.AppendJSON(nil))
}

func canonAll(raws []json.RawMessage) []string {
	out := make([]string, len(raws))
	for i, r := range raws {
		out[i] = canon(r)
	}
	return out
}

func piView(r piResult) view {
	v := view{Entries: canonAll(r.State.Entries), Usage: canonAll(r.State.Usage), Values: canonAll(r.State.Values),
		Lists: canonAll(r.State.Lists), Stats: canon(r.State.Stats), NextSeq: r.State.NextSeq}
	if r.Rewritten != "" {
		b, _ := base64.StdEncoding.DecodeString(r.Rewritten)
		v.Rewritten = string(b)
	}
	sort.Strings(v.Values)
	sort.Strings(v.Lists)
	return v
}

// namespacesOf lists the namespaces pi's values and lists hold.
func namespacesOf(r piResult) []string {
	var ns []string
	for _, raws := range [][]json.RawMessage{r.State.Values, r.State.Lists} {
		for _, raw := range raws {
			var a struct {
				Namespace string `json:"namespace"`
			}
			_ = json.Unmarshal(raw, &a)
			ns = append(ns, a.Namespace)
		}
	}
	return ns
}

func address(b []byte, ns, key string) []byte {
	b = append(b, `{"namespace":`...)
	b = store.AppendJSString(b, ns)
	b = append(b, `,"key":`...)
	return store.AppendJSString(b, key)
}

// goView opens path in frameproof; namespaces are where to look for values
// and lists (frameproof's Storage cannot enumerate them either).
func goView(path string, original []byte, namespaces []string) (view, error) {
	s, err := jsonl.Open(env.Production(), path, jsonl.Options{Sync: jsonl.SyncNever})
	if err != nil {
		return view{}, err
	}
	defer s.Close()
	var v view
	es, err := s.Entries()
	if err != nil {
		return v, err
	}
	for _, e := range es {
		v.Entries = append(v.Entries, canon(serve.EntryJSON(e)))
	}
	us, err := s.Usage()
	if err != nil {
		return v, err
	}
	for _, u := range us {
		row, err := pi.ParseJSON(string(u.Row.Raw))
		if err != nil {
			return v, err
		}
		row.ObjectValue().Set("seq", pi.NumberValue(float64(u.Seq)))
		v.Usage = append(v.Usage, string(row.AppendJSON(nil)))
	}
	slices.Sort(namespaces)
	for _, ns := range slices.Compact(namespaces) {
		vals, err := s.ScanValues(ns, "")
		if err != nil {
			return v, err
		}
		for _, sv := range vals {
			b := address(nil, ns, sv.Address.Key)
			if sv.Value != nil {
				b = append(append(b, `,"value":`...), sv.Value...)
			}
			b = append(append(b, `,"seq":`...), strconv.FormatInt(sv.Seq, 10)...)
			v.Values = append(v.Values, canon(append(b, '}')))
		}
		keys, err := s.ListKeys(ns)
		if err != nil {
			return v, err
		}
		for _, k := range keys {
			els, err := s.ReadList(store.Address{Namespace: ns, Key: k, Kind: store.KindList}, store.ReadOptions{Limit: 10_000})
			if err != nil {
				return v, err
			}
			if len(els) == 0 {
				continue
			}
			b := append(address(nil, ns, k), `,"elements":[`...)
			for i, el := range els {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"seq":`+strconv.FormatInt(el.Seq, 10)...)
				if el.Value != nil {
					b = append(append(b, `,"value":`...), el.Value...)
				}
				b = append(b, '}')
			}
			v.Lists = append(v.Lists, canon(append(b, "]}"...)))
		}
	}
	sort.Strings(v.Values)
	sort.Strings(v.Lists)
	stats, err := s.GetStats()
	if err != nil {
		return v, err
	}
	sb, _ := stats.MarshalJSON()
	v.Stats = canon(sb)
	v.NextSeq = s.NextSeq()
	after, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	if !bytes.Equal(after, original) {
		v.Rewritten = string(after)
	}
	return v, nil
}

// claimsPi: frameproof's open error is one it says is pi's, word for word.
func claimsPi(err error) bool {
	var se *jsonl.StorageError
	return errors.As(err, &se) || strings.HasPrefix(err.Error(), "Session ") && strings.Contains(err.Error(), " uses unsupported storage version ")
}

// compare opens content (written at path) in both and reports how they
// differ ("" when they agree).
func compare(o *piOpener, path string, content []byte, universe []string) (string, error) {
	if err := os.WriteFile(path, content, 0o644); err != nil {
		return "", err
	}
	pr, err := o.open(path, content)
	if err != nil {
		return "", err
	}
	gv, gerr := goView(path, content, append(namespacesOf(pr), universe...))
	switch {
	case pr.OK && gerr != nil:
		return fmt.Sprintf("pi opens the file, frameproof refuses it: %v", gerr), nil
	case !pr.OK && gerr == nil:
		return fmt.Sprintf("frameproof opens the file, pi refuses it: %s (cause: %s)", pr.Error, pr.Cause), nil
	case !pr.OK:
		if !claimsPi(gerr) {
			return "", nil // both refuse; frameproof's message is its own
		}
		if gerr.Error() != pr.Error {
			return fmt.Sprintf("both refuse, with different messages: frameproof %q, pi %q", gerr, pr.Error), nil
		}
		if cause := errors.Unwrap(gerr); cause != nil && pr.Cause != "" && cause.Error() != pr.Cause {
			return fmt.Sprintf("both refuse with %q, for different causes: frameproof %q, pi %q", pr.Error, cause, pr.Cause), nil
		}
		return "", nil
	}
	if d := cmp.Diff(piView(pr), gv, cmpopts.EquateEmpty()); d != "" {
		return "the opened sessions differ (-pi +frameproof):\n" + d, nil
	}
	return "", nil
}
