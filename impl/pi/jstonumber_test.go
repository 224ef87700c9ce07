package pi

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// ECMAScript ToNumber as V8 gives it (Number(x) for each JSON value).
func TestToNumberMatchesECMAScript(t *testing.T) {
	for src, want := range map[string]float64{
		`null`: 0, `true`: 1, `false`: 0, `7.5`: 7.5,
		`""`: 0, `" 12 "`: 12, `"\u00a012\u2028"`: 12, `"0x10"`: 16, `"0b101"`: 5, `"0o17"`: 15,
		`"Infinity"`: math.Inf(1), `"-Infinity"`: math.Inf(-1), `"1e400"`: math.Inf(1), `".5"`: 0.5,
		`[]`: 0, `[5]`: 5, `["6"]`: 6,
	} {
		v, err := ParseJSON(src)
		require.NoError(t, err)
		require.Equal(t, want, ToNumber(v), src)
	}
	for _, src := range []string{`"inf"`, `"nan"`, `"1_000"`, `"0x"`, `"-0x10"`, `"0x1p3"`, `"12px"`, `[1,2]`, `{}`} {
		v, err := ParseJSON(src)
		require.NoError(t, err)
		require.True(t, math.IsNaN(ToNumber(v)), src)
	}
	require.True(t, math.IsNaN(ToNumber(JSONValue{})), "undefined")
}
