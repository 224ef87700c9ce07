package lanecmp

import (
	"fmt"

	ml "github.com/frameproof/frameproof/model/lane"
)

// valueDiff spells out, in full, the first write whose address agrees but
// whose value does not: ListTX trims long values, and an operation state's
// difference is often past the trim.
func valueDiff(got, want []ml.TXWrite) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		g, w := got[i], want[i]
		if g.Kind == w.Kind && g.Namespace == w.Namespace && g.Key == w.Key && w.Value != "" && g.Value != w.Value {
			return fmt.Sprintf("\n write %d (%s %s/%s) value:\n  impl:  %s\n  model: %s", i, g.Kind, g.Namespace, g.Key, g.Value, w.Value)
		}
	}
	return ""
}
