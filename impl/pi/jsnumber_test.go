package pi

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

var tenth = 0.1

func TestFormatNumberMatchesECMAScript(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {1.5, "1.5"}, {0.1, "0.1"},
		{tenth + 0.2, "0.30000000000000004"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{123456789012345680000, "123456789012345680000"}, {1e-6, "0.000001"}, {1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"}, {-1.5e300, "-1.5e+300"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {9007199254740993, "9007199254740992"},
		{2 << 60, "2305843009213694000"}, {1.25e21, "1.25e+21"}, {0.000123, "0.000123"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, FormatNumber(c.in), "%v", c.in)
	}
}

func TestStringifyNonFiniteIsNull(t *testing.T) {
	v := ArrayValue([]JSONValue{NumberValue(math.NaN()), NumberValue(math.Inf(-1)), NumberValue(math.Copysign(0, -1))})
	require.Equal(t, "[null,null,0]", v.String())
}
