package store

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
	"pgregory.net/rapid"
)

// oldIsArrayIndexKey is isArrayIndexKey before its digit scan.
func oldIsArrayIndexKey(key string) bool {
	if key == "" || len(key) > 10 {
		return false
	}
	if len(key) > 1 && key[0] == '0' {
		return false
	}
	n, err := strconv.ParseUint(key, 10, 64)
	return err == nil && n < 1<<32-1
}

// oldCheckParentField is the parent check before its plain-string path
// (checkParent, given the parentId member's value).
func oldCheckParentField(fields []ObjectField, parent *string) error {
	for _, f := range fields {
		if f.Key != "parentId" {
			continue
		}
		if string(f.Value) == "null" {
			if parent != nil {
				return fmt.Errorf("raw parentId %s does not match ParentID", f.Value)
			}
			return nil
		}
		got, ok := nodeString(f.Value)
		if !ok {
			return fmt.Errorf("raw parentId %s is not a string or null", f.Value)
		}
		if parent == nil || got != *parent {
			return fmt.Errorf("raw parentId %s does not match ParentID", f.Value)
		}
		return nil
	}
	return fmt.Errorf("raw has no parentId")
}

// jsonValueOf draws a compact JSON value, mostly strings (plain, escaped,
// non-ASCII, invalid UTF-8), and a string it may or may not decode to.
func jsonValueOf(t *rapid.T) ([]byte, string) {
	s := rapid.StringMatching(`([a-z0-9_:-]|\\|"|é|\x7f|\t| ){0,8}`).Draw(t, "s")
	var v []byte
	switch rapid.IntRange(0, 5).Draw(t, "form") {
	case 0, 1, 2:
		v, _ = json.Marshal(s)
	case 3:
		v = []byte(`"` + s + `"`) // as it is: maybe invalid, maybe escapes
		if !json.Valid(v) {
			v, _ = json.Marshal(s)
		}
	case 4:
		v = []byte(`"\u0061` + strconv.Quote(s)[1:]) // an escaped head
	default:
		v = []byte(rapid.SampledFrom([]string{`null`, `1`, `true`, `{}`, `[]`, `"\xff"`}).Draw(t, "other"))
	}
	if rapid.Bool().Draw(t, "other string") {
		s = rapid.StringMatching(`[a-z0-9"\\]{0,4}`).Draw(t, "s2")
	}
	return v, s
}

// nodeString is v read as node's JSON.parse reads a string (impl/pi's
// parser, the reference the store's ids follow since ids with lone
// surrogates must read the same live and reopened): ok only for a string.
func nodeString(v []byte) (string, bool) {
	x, err := pi.ParseJSON(string(v))
	if err != nil || x.Kind() != pi.String {
		return "", false
	}
	return x.Str(), true
}

func TestPlainJSONStringPathsMatchNode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v, s := jsonValueOf(t)
		got, ok := nodeString(v)
		want := ok && got == s
		if jsonStringIs(v, s) != want {
			t.Fatalf("jsonStringIs(%s, %q) = %v, node's JSON.parse says %v", v, s, !want, want)
		}
		var parent *string
		if rapid.Bool().Draw(t, "parent") {
			parent = &s
		}
		fields := []ObjectField{{Key: "id", Value: []byte(`"x"`)}, {Key: "parentId", Value: v}}
		g, w := checkParent(v, parent), oldCheckParentField(fields, parent)
		if fmt.Sprint(g) != fmt.Sprint(w) {
			t.Fatalf("checkParent(%s, %v) = %v, before %v", v, parent, g, w)
		}
	})
}

func TestIsArrayIndexKeyMatchesParseUint(t *testing.T) {
	for _, k := range []string{"", "0", "00", "01", "7", "4294967294", "4294967295", "99999999999", "+1", "-1", "1_0", "1e3", " 1", "a", "type", "１"} {
		if got, want := isArrayIndexKey(k), oldIsArrayIndexKey(k); got != want {
			t.Errorf("isArrayIndexKey(%q) = %v, want %v", k, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.StringMatching(`[0-9+_a-]{0,11}`).Draw(t, "key")
		if got, want := isArrayIndexKey(k), oldIsArrayIndexKey(k); got != want {
			t.Fatalf("isArrayIndexKey(%q) = %v, want %v", k, got, want)
		}
	})
}
