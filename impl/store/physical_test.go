package store_test

import (
	"testing"

	"github.com/frameproof/frameproof/impl/store"
)

// PhysicalParts names two addresses alike exactly when pi's physical key
// (in-memory-storage-state.ts physicalKey) does: every pair of namespaces
// and keys of up to three bytes drawn from 'a' and NUL.
func TestPhysicalPartsEqualExactlyWhenPhysicalKeysAre(t *testing.T) {
	parts := []string{""}
	for n := 0; n < len(parts) && len(parts[n]) < 3; n++ {
		parts = append(parts, parts[n]+"a", parts[n]+"\x00")
	}
	type addr struct{ ns, key string }
	var addrs []addr
	for _, ns := range parts {
		for _, key := range parts {
			addrs = append(addrs, addr{ns, key})
		}
	}
	for _, x := range addrs {
		xn, xk := store.PhysicalParts(x.ns, x.key)
		for _, y := range addrs {
			yn, yk := store.PhysicalParts(y.ns, y.key)
			if (xn == yn && xk == yk) != (store.PhysicalKey(x.ns, x.key) == store.PhysicalKey(y.ns, y.key)) {
				t.Fatalf("%q and %q: parts (%q,%q) and (%q,%q)", x, y, xn, xk, yn, yk)
			}
		}
	}
}
