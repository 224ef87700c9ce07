package lane

import (
	"fmt"
	"strconv"
)

// uuidV7Timestamp is runtime/drive/response.ts uuidV7Timestamp: the Unix
// milliseconds in a reserved UUIDv7's first 48 bits (hex digits 0–8 and
// 9–13), parsed as JS parseInt(…, 16) does: the longest prefix of hex
// digits. No digit at all (NaN) is pi's SessionInvariantError.
func uuidV7Timestamp(id string) (int64, error) {
	digits := id[:min(8, len(id))]
	if len(id) > 9 {
		digits += id[9:min(13, len(id))]
	}
	n := 0
	for n < len(digits) && isHexDigit(digits[n]) {
		n++
	}
	if n == 0 {
		return 0, &invariantError{"Invalid reserved UUIDv7 " + id}
	}
	ms, err := strconv.ParseInt(digits[:n], 16, 64)
	if err != nil { // at most 12 hex digits: cannot overflow
		return 0, &invariantError{"Invalid reserved UUIDv7 " + id}
	}
	return ms, nil
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// followerID is pi-ai's uuidv7(timestampMs) follower id: a fresh id whose
// 48-bit timestamp is ms instead of the clock's. fresh comes from the
// lane's env.IDs (a UUIDv7, or an id shaped like one); its unique tail is
// kept, so follower ids stay distinct.
func followerID(fresh string, ms int64) (string, error) {
	if len(fresh) != 36 || fresh[8] != '-' || fresh[13] != '-' {
		return "", fmt.Errorf("lane: follower id: minted id %q is not a UUID", fresh)
	}
	if ms < 0 || ms > 0xffffffffffff {
		return "", fmt.Errorf("lane: follower id: timestamp %d is outside UUIDv7's 48 bits", ms)
	}
	hex := fmt.Sprintf("%012x", ms)
	return hex[:8] + "-" + hex[8:] + fresh[13:], nil
}
