package lanecmp

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// TXWrites renders an implementation transaction's writes in the model's
// vocabulary (model/lane.TXWrite).
func TXWrites(ws []store.Write) []ml.TXWrite {
	out := make([]ml.TXWrite, len(ws))
	for i, w := range ws {
		t := ml.TXWrite{Kind: string(w.Kind), Op: string(w.Op), Namespace: w.Namespace, Key: w.Key}
		switch {
		case w.Kind == store.WriteEntry && w.Entry != nil:
			t.Key = w.Entry.ID
			if w.Entry.ParentID != nil {
				t.Parent = *w.Entry.ParentID
			}
		case w.Kind == store.WriteUsage && w.Usage != nil:
			t.Key = w.Usage.ID
		case w.Value != nil:
			t.Value = ml.Canonical(w.Value)
		}
		out[i] = t
	}
	return out
}

// DiffTX compares the implementation's writes with the model's: the same
// count, and write i of each agrees on kind, op, address, an entry's parent
// and, where the model states it, the value.
func DiffTX(got, want []ml.TXWrite) error {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		g, w := got[i], want[i]
		ok = g.Kind == w.Kind && g.Op == w.Op && g.Namespace == w.Namespace && g.Key == w.Key &&
			g.Parent == w.Parent && (w.Value == "" || g.Value == w.Value)
	}
	if ok {
		return nil
	}
	return fmt.Errorf("transaction writes differ from pi's order\n impl:  %s\n model: %s%s", ListTX(got), ListTX(want), valueDiff(got, want))
}

// ListTX prints a write list (long values trimmed).
func ListTX(ws []ml.TXWrite) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.String()
		if len(parts[i]) > 160 {
			parts[i] = parts[i][:160] + "…"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
