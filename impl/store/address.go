package store

import (
	"errors"
	"strings"

	"github.com/frameproof/frameproof/impl/pi"
)

// Exact pi errors for invalid addresses (values.ts validateAddress). The
// strings contain a literal backslash-u sequence, as pi's messages do.
var (
	ErrEmptyNamespace = errors.New(`Value namespace must not be empty`)
	ErrNamespaceNUL   = errors.New(`Value namespace must not contain \u0000`)
	ErrKeyNUL         = errors.New(`Value key must not contain \u0000`)
)

// ValidateAddress applies pi's namespace/key rules, plus one Go-only rule:
// namespace and key must be JS strings as impl/pi holds them (WTF-8: UTF-8
// whose lone surrogates are their 3-byte form, see package pi), because the
// backends store them as JSON strings (JSON.stringify writes a lone
// surrogate as its escape) and other bytes could not survive a round trip.
// A lone surrogate is a legal key in pi (values.ts validateAddress checks
// only emptiness and NUL), and a file pi wrote with one opens here.
func ValidateAddress(namespace, key string) error {
	if namespace == "" {
		return ErrEmptyNamespace
	}
	if strings.IndexByte(namespace, 0) >= 0 {
		return ErrNamespaceNUL
	}
	if strings.IndexByte(key, 0) >= 0 {
		return ErrKeyNUL
	}
	if !pi.IsCanonical(namespace) {
		return errors.New("store: invalid address: namespace is not valid UTF-8")
	}
	if !pi.IsCanonical(key) {
		return errors.New("store: invalid address: key is not valid UTF-8")
	}
	return nil
}

// NewValue returns the typed scalar address (namespace, key). An empty key is
// legal.
func NewValue[T any](namespace, key string) (ValueAddr[T], error) {
	if err := ValidateAddress(namespace, key); err != nil {
		return ValueAddr[T]{}, err
	}
	return ValueAddr[T]{Address{Namespace: namespace, Key: key, Kind: KindValue}}, nil
}

// NewList returns the typed list address (namespace, key).
func NewList[T any](namespace, key string) (ListAddr[T], error) {
	if err := ValidateAddress(namespace, key); err != nil {
		return ListAddr[T]{}, err
	}
	return ListAddr[T]{Address{Namespace: namespace, Key: key, Kind: KindList}}, nil
}

// MustValue is NewValue for addresses built from constants; it panics on an
// invalid address and must not be used with untrusted input.
func MustValue[T any](namespace, key string) ValueAddr[T] {
	a, err := NewValue[T](namespace, key)
	if err != nil {
		panic(err)
	}
	return a
}

// MustList is NewList for addresses built from constants.
func MustList[T any](namespace, key string) ListAddr[T] {
	a, err := NewList[T](namespace, key)
	if err != nil {
		panic(err)
	}
	return a
}

// PhysicalKey is pi's physical key: namespace + "\x00" + key.
func PhysicalKey(namespace, key string) string { return namespace + "\x00" + key }

// PhysicalParts splits PhysicalKey(namespace, key) at its first NUL: two
// addresses have equal parts exactly when their physical keys are equal, and
// the parts are the address itself (no string built) when the namespace holds
// no NUL. Replay can meet such namespaces: pi keys its value and list maps by
// the physical key, and an array namespace ["a\u0000b"] passes
// validateAddress, so ("a\u0000b", "c") and ("a", "b\u0000c") name one list.
func PhysicalParts(namespace, key string) (string, string) {
	if i := strings.IndexByte(namespace, 0); i >= 0 {
		return namespace[:i], namespace[i+1:] + "\x00" + key
	}
	return namespace, key
}
