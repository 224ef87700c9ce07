package jsonl

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/env/envtest"
	"github.com/frameproof/frameproof/impl/store"
)

// JS Date.parse (what pi's legacy-v3.ts applies to every v3 timestamp) on
// the ECMAScript date time string format, values from node 20.
func TestDateParseISO(t *testing.T) {
	for s, want := range map[string]float64{
		"2024-02-30":                    1709251200000, // V8 rolls the day over
		"2024-02-30T00:00:00Z":          1709251200000,
		"2024-01-01T24:00:00Z":          1704153600000,
		"2024-01-01T00:00:00.123456Z":   1704067200123,
		"+002024-01-01T00:00:00Z":       1704067200000,
		"2024-01-01T00:00Z":             1704067200000,
		"2024":                          1704067200000,
		"2020-09-13T12:26:40.000Z":      1600000000000,
		"2020-09-13T14:26:40.000+02:00": 1600000000000,
		"1969-12-31T23:59:59.999Z":      -1,
		"-000001-01-01T00:00:00Z":       -62198755200000,
		"2024-01-01T00:00:00.5Z":        1704067200500,
		"2024-13-01":                    math.NaN(),
		"yesterday":                     math.NaN(),
		"":                              math.NaN(),
		"-000000-01-01T00:00:00Z":       math.NaN(),
		"2024-01-01T00:00:00.Z":         math.NaN(),
		"2024-01-01T25:00:00Z":          math.NaN(),
		"2024-01-01T00:00:00Zjunk":      math.NaN(),
	} {
		got := dateParse(s)
		if math.IsNaN(want) {
			assert.True(t, math.IsNaN(got), "%q: %v", s, got)
		} else {
			assert.Equal(t, want, got, s)
		}
	}
}

func v3Env(dir string) env.Env {
	clock := envtest.NewClock(1_767_000_000_000)
	_ = dir
	return env.Env{Clock: clock, FS: env.OSFS{}, IDs: envtest.IDsAfter(0), Executor: env.Goroutines{}}
}

const v3File = `{"type":"session","version":3,"id":"s3","timestamp":"2020-09-13T12:26:40.000Z","cwd":"/w"}
{"type":"model_change","id":"m","parentId":null,"timestamp":"2020-09-13T12:26:40.000Z","provider":"faux","modelId":"m1"}
{"type":"thinking_level_change","id":"t","parentId":"m","timestamp":"2020-09-13T12:26:40.000Z","thinkingLevel":"high"}
{"type":"message","id":"u","parentId":"t","timestamp":"2020-09-13T12:26:40.001Z","message":{"role":"user","content":"hi","timestamp":1}}
{"type":"message","id":"a","parentId":"u","timestamp":"2020-09-13T12:26:40.002Z","message":{"role":"assistant","content":[],"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"stopReason":"stop","timestamp":2}}
{"type":"label","id":"l","parentId":"a","timestamp":"2020-09-13T12:26:40.003Z","targetId":"u","label":"start"}
{"type":"session_info","id":"i","parentId":"l","timestamp":"2020-09-13T12:26:40.003Z","name":"named"}
`

// pi: session/jsonl/storage.ts JsonlStorage.openLegacyV3 and legacy-v3.ts
// normalizeLegacyV3Records: open imports in memory and leaves the file
// alone; getStats reports the v3 usage (withImportedUsage); the first
// commit is upgradeLegacyV3ToV4, rewriting the file as v4 with a usage
// adjustment row ahead of the caller's writes, whose seqs it returns.
func TestOpenImportsV3AndFirstCommitUpgrades(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	torn := v3File + `{"type":"message","id":"x"`
	require.NoError(t, os.WriteFile(path, []byte(torn), 0o644))
	s, err := Open(v3Env(dir), path, Options{Sync: SyncNever, CompactDeadRatio: 0.01})
	require.NoError(t, err)
	defer s.Close()
	b, _ := os.ReadFile(path)
	assert.Equal(t, torn, string(b), "open leaves a v3 file (and its torn tail) as it is")

	h := s.Header()
	assert.Equal(t, `{"v":4,"kind":"header","id":"s3","createdAt":1600000000000,"storageVersion":1,"cwd":"/w","nextSeq":8}`, string(h.encode()))
	es, err := s.Entries()
	require.NoError(t, err)
	require.Len(t, es, 2)
	u := "0174876e-8001-7000-8000-000000000001" // uuidv7(1600000000001)
	a := "0174876e-8002-7000-8000-000000000002"
	assert.Equal(t, u, es[0].Entry.ID)
	assert.Nil(t, es[0].Entry.ParentID, "the discarded model and thinking records resolve to no retained ancestor")
	assert.Equal(t, u, *es[1].Entry.ParentID)
	tip, _ := s.GetValue(store.Address{Namespace: "pi.branch.tip", Key: "main"})
	assert.Equal(t, `"`+a+`"`, string(tip.Value), "the tip is the last record's nearest retained ancestor")
	label, _ := s.GetValue(store.Address{Namespace: "pi.entry.label", Key: u})
	assert.Equal(t, `"start"`, string(label.Value))
	cfg, _ := s.GetValue(store.Address{Namespace: "pi.lane.config", Key: "main"})
	assert.Equal(t, `{"model":{"provider":"faux","modelId":"m1"},"thinkingLevel":"high","activeToolNames":[]}`, string(cfg.Value))
	name, _ := s.GetValue(store.Address{Namespace: "pi.session.name", Key: ""})
	assert.Equal(t, `"named"`, string(name.Value))
	stats, err := s.GetStats()
	require.NoError(t, err)
	sb, _ := stats.MarshalJSON()
	assert.Equal(t, `{"messageCount":2,"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}}}`, string(sb))
	require.NoError(t, s.Compact())
	b, _ = os.ReadFile(path)
	assert.Equal(t, torn, string(b), "compaction leaves a v3 file to its first commit")

	res, err := s.Commit(nil)
	require.NoError(t, err)
	assert.Equal(t, int64(8), res.FirstSeq, "an empty commit does not upgrade")
	res, err = s.Commit([]store.Write{{Kind: store.WriteValue, Op: store.OpSet, Namespace: "app", Key: "k", Value: []byte(`1`)}})
	require.NoError(t, err)
	assert.Equal(t, store.CommitResult{FirstSeq: 9, Seqs: []int64{9}, Timestamp: 1_767_000_000_000}, res)
	b, _ = os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 9)
	assert.Equal(t, `{"v":4,"kind":"header","id":"s3","createdAt":1600000000000,"storageVersion":1,"cwd":"/w","nextSeq":10}`, lines[0])
	assert.Equal(t, `{"kind":"entry","id":"`+u+`","parentId":null,"seq":1,"timestamp":1600000000001,"type":"message","message":{"role":"user","content":"hi","timestamp":1}}`, lines[1])
	assert.Equal(t, `[{"kind":"usage","id":"0190a000-0000-7000-8000-000000000003","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5}},"adjustment":true,"details":{"source":"v3-import"},"seq":8},{"kind":"value","op":"set","seq":9,"namespace":"app","key":"k","value":1}]`, lines[8])
	stats, _ = s.GetStats()
	sb2, _ := stats.MarshalJSON()
	assert.Equal(t, string(sb), string(sb2), "the adjustment row carries the imported usage")
	res, err = s.Commit([]store.Write{{Kind: store.WriteValue, Op: store.OpSet, Namespace: "app", Key: "k", Value: []byte(`2`)}})
	require.NoError(t, err)
	assert.Equal(t, int64(10), res.FirstSeq)
	require.NoError(t, s.Close())

	again, err := Open(v3Env(dir), path, Options{Sync: SyncNever})
	require.NoError(t, err, "the upgraded file is a v4 file")
	defer again.Close()
	assert.Equal(t, int64(11), again.NextSeq())
}

// pi: legacy-v3.ts errors reach JsonlStorage.open's caller unwrapped.
func TestOpenV3Refusals(t *testing.T) {
	dir := t.TempDir()
	head := `{"type":"session","version":3,"id":"s3","timestamp":"2020-09-13T12:26:40.000Z","cwd":"/w"}` + "\n"
	for body, want := range map[string]string{
		"{\n":                                 "Invalid legacy v3 JSONL record at line 2: not valid JSON",
		`{"type":"register","id":"x"}` + "\n": "Unsupported legacy v3 record type at line 2: register",
		`{"id":"x"}` + "\n":                   "Unsupported legacy v3 record type at line 2: undefined",
		`{"type":"custom","id":"x","parentId":null,"timestamp":"2020-01-01T00:00:00Z"}` + "\n" + `{"type":"custom","id":"x","parentId":null,"timestamp":"2020-01-01T00:00:00Z"}` + "\n": "Duplicate legacy v3 entry id: x",
		`{"type":"custom","id":"x","parentId":"y","timestamp":"2020-01-01T00:00:00Z"}` + "\n":                                                                                           "Missing legacy v3 entry reference: y",
		`{"type":"custom","id":"x","parentId":null,"timestamp":"soon"}` + "\n":                                                                                                          "UUIDv7 timestamp must be an integer between 0 and 281474976710655",
		`{"type":"compaction","id":"c","parentId":null,"timestamp":"2020-01-01T00:00:00Z","summary":"s","firstKeptEntryId":"z","tokensBefore":1}` + "\n":                                "Legacy v3 compaction c firstKeptEntryId is not on its parent branch: z",
		`{"type":"label","id":"l","parentId":"l","timestamp":"2020-01-01T00:00:00Z","targetId":"l"}` + "\n":                                                                             "Cycle in legacy v3 parent chain at entry: l",
	} {
		path := filepath.Join(dir, "s.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(head+body), 0o644))
		_, err := Open(v3Env(dir), path, Options{Sync: SyncNever})
		var le *LegacyV3Error
		if assert.True(t, errors.As(err, &le), "%q: %v", body, err) {
			assert.Equal(t, want, err.Error())
		}
	}
}

// pi: codec.ts parseJsonlSessionHeader tries isJsonlStorageHeader first.
func TestHeaderV4BeforeV3(t *testing.T) {
	h, err := ParseHeader([]byte(`{"v":4,"kind":"header","id":"x","storageVersion":1,"createdAt":0,"cwd":"/","type":"session","version":3}`))
	require.NoError(t, err)
	assert.Equal(t, "x", h.ID)
	_, err = ParseHeader([]byte(`{"type":"session","version":3,"id":"x","cwd":"/","timestamp":"later"}`))
	assert.False(t, IsLegacyV3(err), "a v3 header needs a timestamp Date.parse reads")
	assert.EqualError(t, err, "Unsupported JSONL session header")
}

// pi: legacy-v3.ts metadataFromLegacyV3Header takes createdAt from
// Date.parse of the v3 timestamp, which codec.ts isLegacyV3SessionHeader
// only requires to be finite; storage.ts upgradeLegacyV3ToV4 then writes
// a v4 header that isJsonlStorageHeader refuses (createdAt < 0). frameproof
// follows pi (docs/PI-FINDINGS.md, "A v3 session from before 1970 is
// upgraded into a file pi cannot open").
func TestV3BeforeEpochUpgradesIntoAnUnopenableFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"type":"session","version":3,"id":"s","timestamp":"1969-12-31T23:59:59.000Z","cwd":"/w"}`+"\n"), 0o644))
	s, err := Open(v3Env(dir), path, Options{Sync: SyncNever})
	require.NoError(t, err)
	_, err = s.Commit([]store.Write{{Kind: store.WriteValue, Op: store.OpSet, Namespace: "app", Key: "k", Value: []byte(`1`)}})
	require.NoError(t, err)
	require.NoError(t, s.Close())
	b, _ := os.ReadFile(path)
	assert.True(t, strings.HasPrefix(string(b), `{"v":4,"kind":"header","id":"s","createdAt":-1000,`), "%s", b)
	_, err = Open(v3Env(dir), path, Options{Sync: SyncNever})
	assert.EqualError(t, err, "Invalid JSONL storage "+path+": invalid header")
}
