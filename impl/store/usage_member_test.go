package store

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

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
