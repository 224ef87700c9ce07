package storediff

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/props/peer"
)

// jsReorders states which keys JSON.parse + JSON.stringify move ahead of
// earlier string keys: ECMAScript's array indices, the canonical decimal
// strings of 0 ≤ n < 2^32-1 (ECMA-262 "array index";
// OrdinaryOwnPropertyKeys lists them first, ascending). Written from the
// spec, not from impl/store; TestIntegerLikeKeysMatchNode checks it against
// node through the pi-ai peer.
func jsReorders(key string) bool {
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && strconv.FormatUint(n, 10) == key && n < 4294967295
}

// boundaryKeys sit on every edge of the array-index rule: the 2^32-1
// limit (4294967295 is the first non-index), leading zeros, signs, 11
// digits, the empty key, and numbers past uint64.
var boundaryKeys = []string{"0", "1", "00", "01", "-0", "-1", "+1", "1.0", "1e3", " 1", "",
	"4294967293", "4294967294", "4294967295", "4294967296", "04294967294", "9999999999", "10000000000",
	"18446744073709551615", "18446744073709551616", "a1", "id2"}

// sampledKeys adds decimal strings drawn around the limit and at random.
func sampledKeys(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 3))
	keys := append([]string(nil), boundaryKeys...)
	for i := 0; i < n; i++ {
		switch r.IntN(3) {
		case 0:
			keys = append(keys, strconv.FormatUint(4294967295+uint64(r.IntN(9))-4, 10))
		case 1:
			keys = append(keys, strconv.FormatUint(r.Uint64N(1<<34), 10))
		default:
			keys = append(keys, strings.Repeat("0", r.IntN(2))+strconv.Itoa(r.IntN(100)))
		}
	}
	return keys
}

// storeRefuses commits a usage row whose second key is key and reports
// whether the store refused it as integer-like (a row key JS would move
// ahead of "id", breaking pi's record layout).
func storeRefuses(t *testing.T, key string) bool {
	raw, err := json.Marshal(key)
	require.NoError(t, err)
	row := `{"id":"u1",` + string(raw) + `:0,"usage":{"cost":{}}}`
	_, err = memory.New(env.SystemClock{}).Commit([]store.Write{store.InsertUsage(store.UsageRow{ID: "u1", Raw: json.RawMessage(row)})})
	if err != nil {
		require.Contains(t, err.Error(), "integer-like key", "row %s", row)
	}
	return err != nil
}

// The store refuses exactly the row keys JS reorders, at the 2^32-1 edge
// and around it.
func TestStoreRefusesExactlyJSArrayIndexKeys(t *testing.T) {
	for _, key := range sampledKeys(1, 200) {
		require.Equal(t, jsReorders(key), storeRefuses(t, key), "key %q", key)
	}
}

// jsReorders agrees with node: pi-ai's parseStreamingJson (JSON.parse) of
// {"id":…,key:…} printed by JSON.stringify puts key first exactly when
// jsReorders says so.
func TestIntegerLikeKeysMatchNode(t *testing.T) {
	p := peer.Open(t)
	keys := sampledKeys(2, 200)
	inputs := make([]json.RawMessage, len(keys))
	for i, key := range keys {
		k, err := json.Marshal(key)
		require.NoError(t, err)
		lit, err := json.Marshal(`{"id":"u1",` + string(k) + `:0}`)
		require.NoError(t, err)
		inputs[i] = lit
	}
	got, err := p.ParseStreamingJSON(inputs)
	require.NoError(t, err)
	for i, key := range keys {
		movedFirst := !strings.HasPrefix(string(got[i]), `{"id"`)
		require.Equal(t, movedFirst, jsReorders(key), "key %q: node printed %s", key, got[i])
	}
}
