package compaction

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
)

func entry(t *testing.T, ts float64, raw string) Entry {
	t.Helper()
	e, err := ParseEntry([]byte(raw), ts)
	require.NoError(t, err)
	return e
}

func msgEntry(t *testing.T, id, message string) Entry {
	return entry(t, 1, `{"id":"`+id+`","parentId":null,"type":"message","message":`+message+`}`)
}

func settings(t *testing.T, keep string) pi.JSONValue {
	t.Helper()
	v, err := pi.ParseJSON(`{"enabled":true,"reserveTokens":16384,"keepRecentTokens":` + keep + `}`)
	require.NoError(t, err)
	return v
}

func prepared(t *testing.T, path []Entry, s pi.JSONValue) string {
	t.Helper()
	v, ok, err := Prepare(path, s)
	require.NoError(t, err)
	require.True(t, ok)
	return string(v.AppendJSON(nil))
}

const (
	u1 = `{"role":"user","content":"aaaaaaaaaaaa","timestamp":1}`
	a1 = `{"role":"assistant","content":[{"type":"text","text":"bbbbbbbbbbbbbbbb"}],"stopReason":"stop","usage":{"input":50,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":60},"timestamp":2}`
	u2 = `{"role":"user","content":"cccccccc","timestamp":3}`
	a2 = `{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"x.go"}}],"stopReason":"toolUse","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":4}`
	u3 = `{"role":"user","content":"dd","timestamp":5}`
)

// compaction.ts prepareCompaction: the cut lands on an assistant message, so
// the turn is split at its user message; tokensBefore is the last usable
// usage (60) plus the estimates after it (2+5+1).
func TestPrepareSplitsTurnAtAssistantCut(t *testing.T) {
	path := []Entry{msgEntry(t, "1", u1), msgEntry(t, "2", a1), msgEntry(t, "3", u2), msgEntry(t, "4", a2), msgEntry(t, "5", u3)}
	s := `{"enabled":true,"reserveTokens":16384,"keepRecentTokens":5}`
	want := `{"kind":"compaction","messagesToSummarize":[` + u1 + `,` + a1 + `],"turnPrefixMessages":[` + u2 +
		`],"retainedTail":[` + a2 + `,` + u3 + `],"isSplitTurn":true,"tokensBefore":68,` +
		`"fileOps":{"read":[],"written":[],"edited":[]},"settings":` + s + `}`
	require.Equal(t, want, prepared(t, path, settings(t, "5")))
}

// compaction.ts prepareCompaction: after a compaction, its retained tail is
// compactable again, its summary becomes previousSummary, its details seed
// the file operations, and a budget never reached keeps everything.
func TestPrepareAfterCompactionKeepsTailAndSeedsFileOps(t *testing.T) {
	rtUser := `{"role":"user","content":"rr","timestamp":7}`
	rtAsst := `{"role":"assistant","content":[{"type":"toolCall","id":"e","name":"edit","arguments":{"path":"e.go"}}],"stopReason":"stop","usage":{"input":30,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":40},"timestamp":8}`
	u4 := `{"role":"user","content":"eeee","timestamp":9}`
	c := entry(t, 1000, `{"id":"c","parentId":"p","type":"compaction","summary":"S","retainedTail":[`+rtUser+`,`+rtAsst+
		`],"tokensBefore":999,"details":{"readFiles":["r1"],"modifiedFiles":["m1",3]},"fromHook":false}`)
	path := []Entry{c, msgEntry(t, "u4", u4)}
	s := `{"enabled":true,"reserveTokens":16384,"keepRecentTokens":1000}`
	want := `{"kind":"compaction","messagesToSummarize":[],"turnPrefixMessages":[],"retainedTail":[` + rtUser + `,` + rtAsst + `,` + u4 +
		`],"isSplitTurn":false,"tokensBefore":41,"previousSummary":"S",` +
		`"fileOps":{"read":["r1"],"written":[],"edited":["m1"]},"settings":` + s + `}`
	require.Equal(t, want, prepared(t, path, settings(t, "1000")))
}

// compaction.ts findCutPoint: the cut moves back over a custom entry, which
// then starts the kept tail and splits the turn of u1; the prefix's write
// call is a file operation. No usage anywhere: tokensBefore sums estimates.
func TestPrepareMovesCutOverNonMessageEntries(t *testing.T) {
	a := `{"role":"assistant","content":[{"type":"text","text":"12345678"},{"type":"toolCall","id":"w","name":"write","arguments":{"path":"w.go","content":"x"}}],"stopReason":"toolUse","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0},"timestamp":2}`
	path := []Entry{
		msgEntry(t, "1", `{"role":"user","content":"aaaa","timestamp":1}`),
		msgEntry(t, "2", a),
		entry(t, 3, `{"id":"3","parentId":"2","type":"custom","customType":"note","data":1}`),
		msgEntry(t, "4", `{"role":"user","content":"bb","timestamp":4}`),
	}
	s := `{"enabled":true,"reserveTokens":16384,"keepRecentTokens":1}`
	want := `{"kind":"compaction","messagesToSummarize":[],"turnPrefixMessages":[{"role":"user","content":"aaaa","timestamp":1},` + a +
		`],"retainedTail":[{"role":"user","content":"bb","timestamp":4}],"isSplitTurn":true,"tokensBefore":13,` +
		`"fileOps":{"read":[],"written":["w.go"],"edited":[]},"settings":` + s + `}`
	require.Equal(t, want, prepared(t, path, settings(t, "1")))
}

// compaction.ts prepareCompaction: an empty path, or one whose newest entry
// is a compaction, has nothing to compact (undefined), before settings are read.
func TestPrepareNothingToCompact(t *testing.T) {
	_, ok, err := Prepare(nil, pi.JSONValue{})
	require.NoError(t, err)
	require.False(t, ok)
	c := entry(t, 1, `{"id":"c","parentId":null,"type":"compaction","summary":"S","retainedTail":[],"tokensBefore":1,"fromHook":false}`)
	_, ok, err = Prepare([]Entry{msgEntry(t, "1", u1), c}, pi.JSONValue{})
	require.NoError(t, err)
	require.False(t, ok)
}

// compaction.ts prepareCompaction reads settings.keepRecentTokens: without
// settings V8 throws this TypeError, which faults pi's harness.
func TestPrepareWithoutSettingsIsJSTypeError(t *testing.T) {
	_, _, err := Prepare([]Entry{msgEntry(t, "1", u1)}, pi.JSONValue{})
	require.EqualError(t, err, "Cannot read properties of undefined (reading 'keepRecentTokens')")
}

// compaction.ts estimateTokens: UTF-16 lengths, images as 4800 chars,
// JSON.stringify of tool arguments ("undefined" when absent), ceil(/4).
func TestEstimateTokens(t *testing.T) {
	cases := map[string]int{
		`{"role":"user","content":"😀"}`: 1,
		`{"role":"user","content":[{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"abcde"}]}`: 1202,
		`{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"ab"}]}`:                                     3,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"` + strings.Repeat("x", 9) + `"}]}`:              3,
		`{"role":"bashExecution","command":"ls","output":"abc"}`:                                                        2,
		`{"role":"compactionSummary","summary":"12345"}`:                                                                2,
		`{"role":"other","content":"abcdefgh"}`:                                                                         0,
	}
	for raw, want := range cases {
		v, err := pi.ParseJSON(raw)
		require.NoError(t, err)
		require.Equal(t, want, EstimateTokens(v), raw)
	}
}

// session/context.ts sessionEntryToContextMessages gives undefined for an
// entry type it does not know; compaction.ts estimateContextTokens then
// throws reading its role when its walk from the end reaches it, and never
// touches one before the last usable usage.
func TestPrepareUnknownEntryTypeThrowsOnlyWhenReached(t *testing.T) {
	odd := entry(t, 1, `{"id":"x","parentId":null,"type":"label_change","label":"l"}`)
	s := settings(t, "5")
	_, _, err := Prepare([]Entry{msgEntry(t, "1", u1), odd, msgEntry(t, "2", u2)}, s)
	require.EqualError(t, err, "Cannot read properties of undefined (reading 'role')")
	_, ok, err := Prepare([]Entry{odd, msgEntry(t, "1", a1), msgEntry(t, "2", u2)}, s)
	require.NoError(t, err)
	require.True(t, ok)
}

// compaction.ts findCutPoint compares `accumulatedTokens >= keepRecentTokens`,
// so a stored setting that is not a number goes through JS ToNumber.
func TestKeepRecentTokensIsJSToNumber(t *testing.T) {
	for keep, want := range map[string]float64{`5`: 5, `"0x10"`: 16, `[7]`: 7, `"1e400"`: math.Inf(1), `null`: 0} {
		got, err := keepRecentTokens(settings(t, keep))
		require.NoError(t, err)
		require.Equal(t, want, got, keep)
	}
	got, err := keepRecentTokens(settings(t, `"inf"`))
	require.NoError(t, err)
	require.True(t, math.IsNaN(got))
}
