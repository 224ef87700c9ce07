package jsonl

import (
	"math"
	"time"
)

// dateParse is JS Date.parse for the ECMAScript date time string format
// (ECMA-262 §21.4.1.32): YYYY[-MM[-DD]] with optional THH:mm[:ss[.sss]] and
// Z or ±HH:mm, extended years ±YYYYYY. A date-only form is UTC; a
// date-time form without an offset is local time, taken as UTC here (pi's
// v3 files hold Date.toISOString values, which always end in Z). Anything
// else is NaN, where V8 would also try its legacy formats ("Dec 6 2026"):
// a v3 file whose timestamps use one of those is refused here.
func dateParse(s string) float64 {
	nan := math.NaN()
	i := 0
	digits := func(n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		i += n
		return v, true
	}
	lit := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	var year int
	var ok bool
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg := s[i] == '-'
		i++
		if year, ok = digits(6); !ok || (neg && year == 0) {
			return nan
		}
		if neg {
			year = -year
		}
	} else if year, ok = digits(4); !ok {
		return nan
	}
	month, day := 1, 1
	if lit('-') {
		if month, ok = digits(2); !ok || month < 1 || month > 12 {
			return nan
		}
		if lit('-') {
			if day, ok = digits(2); !ok || day < 1 || day > 31 {
				return nan
			}
		}
	}
	hour, minute, sec, ms := 0, 0, 0, 0
	offset := 0 // minutes east of UTC
	if lit('T') {
		if hour, ok = digits(2); !ok || hour > 24 || !lit(':') {
			return nan
		}
		if minute, ok = digits(2); !ok || minute > 59 {
			return nan
		}
		if lit(':') {
			if sec, ok = digits(2); !ok || sec > 59 {
				return nan
			}
			if lit('.') {
				start := i
				frac := 0
				for i < len(s) && s[i] >= '0' && s[i] <= '9' {
					if i-start < 3 {
						frac = frac*10 + int(s[i]-'0')
					}
					i++
				}
				if i == start {
					return nan
				}
				for n := i - start; n < 3; n++ {
					frac *= 10
				}
				ms = frac
			}
		}
		if hour == 24 && (minute != 0 || sec != 0 || ms != 0) {
			return nan
		}
		switch {
		case lit('Z'):
		case i < len(s) && (s[i] == '+' || s[i] == '-'):
			sign := 1
			if s[i] == '-' {
				sign = -1
			}
			i++
			oh, ok1 := digits(2)
			if !ok1 || oh > 23 || !lit(':') {
				return nan
			}
			om, ok2 := digits(2)
			if !ok2 || om > 59 {
				return nan
			}
			offset = sign * (oh*60 + om)
		}
	}
	if i != len(s) {
		return nan
	}
	// V8 takes any day 1–31 and rolls it over (2024-02-30 is March 1).
	t := time.Date(year, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), time.UTC)
	v := float64(t.UnixMilli()) - float64(offset)*60_000
	if math.Abs(v) > 8.64e15 {
		return nan
	}
	return v
}
