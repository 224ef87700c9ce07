package replay

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	model "github.com/frameproof/frameproof/model/replay"
	"github.com/frameproof/frameproof/model/wire"
	"github.com/frameproof/frameproof/props/corpus"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite corpus/vectors/replay from the cases (expected from the reference model)")

const vectorDir = "../../corpus/vectors/replay"

// vectorFile is the on-disk form (schema 1); props/corpus owns the format
// and its loader, so the corpus runner and these tests read the same thing.
type (
	vectorFile   = corpus.ReplayVector
	vectorTarget = corpus.ReplayTarget
)

func targetOf(v vectorFile) impl.Target {
	return impl.Target{Wire: v.Target.Wire, Provider: v.Target.Provider, Model: v.Target.Model, Vision: v.Target.Vision}
}

func indent(b []byte) json.RawMessage {
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		panic(err)
	}
	return out.Bytes()
}

// expandCases turns each case into one vector per wire.
func expandCases() []vectorFile {
	var out []vectorFile
	for _, c := range vectorCases() {
		wires := c.wires
		if wires == nil {
			wires = impl.Wires
		}
		for _, w := range wires {
			rec := c.record
			if rec == nil {
				rec = signedThinking(w)
			}
			var raw []byte
			raw = append(raw, '[')
			for i, m := range rec {
				if i > 0 {
					raw = append(raw, ',')
				}
				raw = m.AppendJSON(raw)
			}
			raw = append(raw, ']')
			mdl := c.model
			if mdl == "" {
				mdl = "model-a"
			}
			out = append(out, vectorFile{Schema: 1, Name: c.name + "." + w, Source: c.source, Record: indent(raw),
				Target:    vectorTarget{Wire: w, Provider: "prov", Model: mdl, Vision: c.vision},
				Principal: c.principal, Microcompact: c.compact, MustContain: c.must, MustNotContain: c.mustNot})
		}
	}
	return out
}

func referenceBody(t *testing.T, v vectorFile, msgs []pi.Appender) []byte {
	tg := targetOf(v)
	if v.Microcompact != nil {
		msgs = model.Microcompact(msgs, v.Microcompact.KeepRecent, v.Microcompact.Tools)
	}
	var p *model.Principal
	if v.Principal != nil {
		mp := model.Principal(*v.Principal)
		p = &mp
	}
	body, err := model.Project(msgs, model.Target{Wire: tg.Wire, Provider: tg.Provider, Model: tg.Model, Vision: tg.Vision}, p)
	require.NoError(t, err, v.Name)
	return body
}

func TestVectorsUpdate(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate the corpus")
	}
	require.NoError(t, os.MkdirAll(vectorDir, 0o755))
	for _, v := range expandCases() {
		msgs, err := impl.DecodeTranscript(string(v.Record))
		require.NoError(t, err)
		v.Expected = indent(referenceBody(t, v, msgs))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(v))
		require.NoError(t, os.WriteFile(filepath.Join(vectorDir, v.Name+".json"), buf.Bytes(), 0o644))
	}
}

func loadVectors(t *testing.T) []vectorFile {
	files, err := filepath.Glob(filepath.Join(vectorDir, "*.json"))
	require.NoError(t, err)
	sort.Strings(files)
	var out []vectorFile
	for _, f := range files {
		v, err := corpus.ReadReplayVector(f)
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// TestVectors runs every corpus entry: impl's bytes equal the stored
// expected body, the reference model agrees, the wire's validator accepts,
// and the original test's own assertions hold.
func TestVectors(t *testing.T) {
	vectors := loadVectors(t)
	require.NotEmpty(t, vectors)
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			msgs, err := impl.DecodeTranscript(string(v.Record))
			require.NoError(t, err)
			exp, err := pi.ParseJSON(string(v.Expected))
			require.NoError(t, err)
			want := exp.AppendJSON(nil)
			got, err := impl.Project(msgs, targetOf(v), impl.Options{Principal: v.Principal, Microcompact: v.Microcompact})
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), "impl differs from the stored expected body")
			require.Equal(t, string(want), string(referenceBody(t, v, msgs)), "reference model differs from the stored expected body")
			require.NoError(t, wire.Validate(v.Target.Wire, got, wire.Options{Vision: v.Target.Vision, Model: v.Target.Model}))
			for _, s := range v.MustContain {
				require.Contains(t, string(got), s)
			}
			for _, s := range v.MustNotContain {
				require.NotContains(t, string(got), s)
			}
		})
	}
}

// TestVectorsMatchCases: every case has its files and no file is stale, so
// the corpus cannot silently shrink or drift from the cases.
func TestVectorsMatchCases(t *testing.T) {
	have := map[string]vectorFile{}
	for _, v := range loadVectors(t) {
		have[v.Name] = v
	}
	want := expandCases()
	require.Len(t, have, len(want), "corpus has %d files, cases expand to %d (run -update)", len(have), len(want))
	for _, c := range want {
		v, ok := have[c.Name]
		require.True(t, ok, "missing vector %s (run -update)", c.Name)
		require.JSONEq(t, string(c.Record), string(v.Record), "%s: record drifted from its case", c.Name)
		require.Equal(t, fmt.Sprint(c.MustContain, c.MustNotContain), fmt.Sprint(v.MustContain, v.MustNotContain), c.Name)
	}
}
