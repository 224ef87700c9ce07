package codec

import (
	"flag"
	"os"
	"testing"
)

// TestMain raises rapid's default budget (100 cases) unless -rapid.checks
// was given: properties here are cheap, so they get 1000 cases, 200 under
// -short.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if !set {
		n := "1000"
		if testing.Short() {
			n = "200"
		}
		_ = flag.Set("rapid.checks", n)
	}
	os.Exit(m.Run())
}
