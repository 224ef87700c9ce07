package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// oldUsageFoldError and oldCheckUsageTotals are the map-decoding forms
// before member.
func oldUsageFoldError(usage json.RawMessage) error {
	if len(usage) == 0 {
		return ErrUsageUndefined
	}
	switch usage[0] {
	case 'n':
		return ErrUsageNull
	case '{':
	default:
		return ErrUsageUndefined
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(usage, &members); err != nil {
		return err
	}
	cost, ok := members["cost"]
	switch {
	case !ok:
		return ErrUsageUndefined
	case string(cost) == "null":
		return ErrUsageNull
	}
	return nil
}

func oldCheckUsageTotals(writes []CommittedWrite) error {
	for _, w := range writes {
		if w.Kind != WriteUsage {
			continue
		}
		var row map[string]json.RawMessage
		if err := json.Unmarshal(w.Usage.Raw, &row); err != nil {
			return err
		}
		if err := oldUsageFoldError(row["usage"]); err != nil {
			return err
		}
	}
	return nil
}

// drawObject draws a JSON object text whose members may be key (plain or
// escaped), repeated, spaced out, with values from vals.
func drawObject(t *rapid.T, key string, vals []string) string {
	n := rapid.IntRange(0, 4).Draw(t, "members")
	parts := make([]string, n)
	sp := func() string { return rapid.SampledFrom([]string{"", "", " "}).Draw(t, "space") }
	for i := range parts {
		k := rapid.SampledFrom([]string{`"` + key + `"`, `"\u00` + fmt.Sprintf("%x", key[0]) + key[1:] + `"`, `"id"`, `"x` + key + `"`, `"é"`}).Draw(t, "key")
		parts[i] = sp() + k + sp() + ":" + sp() + rapid.SampledFrom(vals).Draw(t, "value") + sp()
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// TestUsageChecksMatchMapDecoding: UsageFoldError and CheckUsageTotals
// with member answer as the map-decoding forms did, for compact and spaced
// rows, repeated and escaped keys, and every kind of usage and cost value.
func TestUsageChecksMatchMapDecoding(t *testing.T) {
	for _, row := range []string{`{}`, `{"id":"u"}`, `{"xusage":{"cost":1}}`, `{"usage":{"xcost":1}}`, `{"usage":{"cost":null}}`,
		`{"usage":{"cost":1}}`, `{"\u0075sage":{"\u0063ost":null}}`, `{"usage":{"cost":1},"usage":null}`, `{"usage" : {"cost" : null}}`,
		`{"usage":{"cost":null,"cost":1}}`, `{"usage":null}`, `{"usage":[]}`, `{"é":1,"usage":{"cost":{}}}`} {
		writes := []CommittedWrite{{Write: Write{Kind: WriteUsage, Usage: &UsageRow{ID: "u1", Raw: json.RawMessage(row)}}}}
		if g, w := CheckUsageTotals(writes), oldCheckUsageTotals(writes); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("CheckUsageTotals(%s) = %v, before %v", row, g, w)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		costs := []string{`null`, `0`, `{}`, `{"total":1}`, `"x"`, `[]`, `[null]`}
		usage := drawObject(t, "cost", costs)
		if rapid.Bool().Draw(t, "not an object") {
			usage = rapid.SampledFrom([]string{`null`, `1`, `"u"`, `[{"cost":1}]`, `true`}).Draw(t, "usage")
		}
		u := json.RawMessage(usage)
		if g, w := UsageFoldError(u), oldUsageFoldError(u); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("UsageFoldError(%s) = %v, before %v", usage, g, w)
		}
		row := drawObject(t, "usage", []string{usage, `null`, `1`, `{"cost":null}`})
		writes := []CommittedWrite{{Write: Write{Kind: WriteUsage, Usage: &UsageRow{ID: "u1", Raw: json.RawMessage(row)}}}}
		if g, w := CheckUsageTotals(writes), oldCheckUsageTotals(writes); fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("CheckUsageTotals(%s) = %v, before %v", row, g, w)
		}
	})
}

// oldAdd is UsageTotals.Add as it was, with maps: the reference the
// map-free Add must agree with.
func oldAdd(u *UsageTotals, usage json.RawMessage) {
	fields := map[string]json.RawMessage{}
	var cost json.RawMessage
	if fs, err := oldObjectFields(usage); err == nil {
		for _, f := range fs {
			fields[f.Key] = f.Value
		}
		cost = fields["cost"]
	}
	get := func(m map[string]json.RawMessage, k string) float64 {
		v, ok := m[k]
		return jsAddend(v, ok)
	}
	u.Input += get(fields, "input")
	u.Output += get(fields, "output")
	u.CacheRead += get(fields, "cacheRead")
	u.CacheWrite += get(fields, "cacheWrite")
	for _, opt := range []struct {
		dst **float64
		key string
	}{{&u.CacheWrite1h, "cacheWrite1h"}, {&u.Reasoning, "reasoning"}} {
		v, ok := fields[opt.key]
		x, defined := optionalAddend(v, ok)
		if *opt.dst == nil && !defined {
			continue
		}
		sum := x
		if *opt.dst != nil {
			sum = **opt.dst + x
		}
		*opt.dst = &sum
	}
	u.TotalTokens += get(fields, "totalTokens")
	costs := map[string]json.RawMessage{}
	if fs, err := oldObjectFields(cost); err == nil {
		for _, f := range fs {
			costs[f.Key] = f.Value
		}
	}
	u.Cost.Input += get(costs, "input")
	u.Cost.Output += get(costs, "output")
	u.Cost.CacheRead += get(costs, "cacheRead")
	u.Cost.CacheWrite += get(costs, "cacheWrite")
	u.Cost.Total += get(costs, "total")
}

// oldObjectFields splits a JSON object (compact or not); the last duplicate
// wins when read into a map, as in JSON.parse.
func oldObjectFields(v json.RawMessage) ([]ObjectField, error) {
	if len(v) == 0 || v[0] != '{' {
		return nil, errors.New("not an object")
	}
	if validCompact(v) {
		if fs, err := splitCompactObject(v); err == nil {
			return fs, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		return nil, err
	}
	out := make([]ObjectField, 0, len(m))
	for k, x := range m {
		out = append(out, ObjectField{Key: k, Value: x})
	}
	return out, nil
}

// TestUsageAddMatchesMapDecoding: Add folds every Usage object as the map
// form did, bit for bit (NaN included), for compact and spaced objects,
// repeated and escaped keys, absent, null, boolean and non-number members,
// and the optional cacheWrite1h and reasoning appearing in any row.
func TestUsageAddMatchesMapDecoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vals := []string{`1`, `2.5`, `0`, `-3e2`, `null`, `true`, `false`, `"7"`, `[]`, `{}`}
		keys := []string{"input", "output", "cacheRead", "cacheWrite", "cacheWrite1h", "reasoning", "totalTokens", "total", "x"}
		object := func(label string, extra ...string) string {
			n := rapid.IntRange(0, 10).Draw(t, label+" members")
			parts := make([]string, 0, n+len(extra))
			sp := func() string { return rapid.SampledFrom([]string{"", "", " "}).Draw(t, "space") }
			for range n {
				k := rapid.SampledFrom(keys).Draw(t, label+" key")
				if rapid.IntRange(0, 9).Draw(t, "escape") == 0 {
					k = `\u00` + fmt.Sprintf("%x", k[0]) + k[1:]
				}
				parts = append(parts, sp()+`"`+k+`"`+sp()+":"+sp()+rapid.SampledFrom(vals).Draw(t, label+" value"))
			}
			parts = append(parts, extra...)
			rapid.Permutation(parts).Draw(t, label+" order")
			return "{" + strings.Join(parts, ",") + "}"
		}
		var got, want UsageTotals
		for range rapid.IntRange(1, 4).Draw(t, "rows") {
			usage := object("usage", `"cost":`+object("cost"))
			if rapid.IntRange(0, 5).Draw(t, "odd cost") == 0 {
				usage = object("usage", `"cost":`+rapid.SampledFrom([]string{`1`, `null`, `"c"`, `[]`}).Draw(t, "cost"))
			}
			got.Add(json.RawMessage(usage))
			oldAdd(&want, json.RawMessage(usage))
			if g, w := totalsBits(got), totalsBits(want); g != w {
				t.Fatalf("after %s: Add %v, map form %v", usage, g, w)
			}
		}
	})
}

// totalsBits is every number of u as its bits (an absent optional as
// "absent"), for comparing totals exactly, NaNs included.
func totalsBits(u UsageTotals) string {
	opt := func(p *float64) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprint(math.Float64bits(*p))
	}
	var out []string
	for _, x := range []float64{u.Input, u.Output, u.CacheRead, u.CacheWrite, u.TotalTokens,
		u.Cost.Input, u.Cost.Output, u.Cost.CacheRead, u.Cost.CacheWrite, u.Cost.Total} {
		out = append(out, fmt.Sprint(math.Float64bits(x)))
	}
	return strings.Join(append(out, opt(u.CacheWrite1h), opt(u.Reasoning)), " ")
}

// GetStats folds usage rows lazily: totals read after every commit, only
// at the end, or twice in a row are the same, and equal the rows folded
// eagerly in seq order (what applyValidated does), bit for bit.
func TestStatsFoldLazilyAsEagerly(t *testing.T) {
	rows := []string{
		`{"id":"u1","usage":{"input":0.1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}}}`,
		`{"id":"u2","usage":{"input":0.2,"output":1,"cacheRead":3,"cacheWrite":1,"reasoning":4,"totalTokens":5,"cost":{"input":0.7,"output":0.1,"cacheRead":0.3,"cacheWrite":0,"total":1.1}}}`,
		`{"id":"u3","usage":{"input":0.3,"output":null,"cacheRead":1,"cacheWrite":2,"totalTokens":3,"cost":{"total":0.6}}}`,
	}
	every, atEnd := NewState(), NewState()
	var eager UsageTotals
	for _, r := range rows {
		var row struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal([]byte(r), &row))
		for _, s := range []*State{every, atEnd} {
			ws, _, err := s.Prepare([]Write{InsertUsage(UsageRow{ID: row.ID, Raw: json.RawMessage(r)})}, 0)
			require.NoError(t, err)
			s.Apply(ws)
		}
		eager.AddUsageRow(json.RawMessage(r))
		every.GetStats()
	}
	want := totalsBits(eager)
	require.Equal(t, want, totalsBits(every.GetStats().Usage))
	require.Equal(t, want, totalsBits(atEnd.GetStats().Usage))
	require.Equal(t, want, totalsBits(atEnd.GetStats().Usage), "a second read folds nothing again")
}
