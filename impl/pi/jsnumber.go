package pi

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber is ECMAScript Number::toString(x) (radix 10), so
// FormatNumber(1e21) = "1e+21", FormatNumber(-0) = "0", FormatNumber(0.1) = "0.1".
func FormatNumber(x float64) string {
	return string(AppendNumber(nil, x))
}

// AppendNumber appends FormatNumber(x).
func AppendNumber(dst []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(dst, "NaN"...)
	case math.IsInf(x, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(x, -1):
		return append(dst, "-Infinity"...)
	case x == 0:
		return append(dst, '0')
	}
	if x < 0 {
		dst = append(dst, '-')
		x = -x
	}
	// Integers below 2^53 print as themselves; this is the hot path.
	if x < 1e21 && x == math.Trunc(x) && x < 1<<53 {
		return strconv.AppendInt(dst, int64(x), 10)
	}
	// Shortest round-tripping digits, as ECMAScript requires: "d.ddde±x".
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	k := len(digits)
	e10, _ := strconv.Atoi(exp)
	n := e10 + 1
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for i := 0; i < n-k; i++ {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, "0."...)
		for i := 0; i < -n; i++ {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// isSafeInteger is Number.isSafeInteger.
func isSafeInteger(x float64) bool {
	return x == math.Trunc(x) && math.Abs(x) <= 1<<53-1
}
