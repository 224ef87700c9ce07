package lanecmp

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
)

// TXWrites renders an implementation transaction's writes in the model's
// vocabulary (model/lane.TXWrite).
func TXWrites(ws []store.Write) []ml.TXWrite {
	out := make([]ml.TXWrite, len(ws))
	for i, w := range ws {
		out[i] = txWrite(w, ml.Canonical)
	}
	return out
}

// txWrite is one write in the model's vocabulary, its value rendered by
// canonical (nil: no value).
func txWrite(w store.Write, canonical func([]byte) string) ml.TXWrite {
	t := ml.TXWrite{Kind: string(w.Kind), Op: string(w.Op), Namespace: w.Namespace, Key: w.Key}
	switch {
	case w.Kind == store.WriteEntry && w.Entry != nil:
		t.Key = w.Entry.ID
		if w.Entry.ParentID != nil {
			t.Parent = *w.Entry.ParentID
		}
	case w.Kind == store.WriteUsage && w.Usage != nil:
		t.Key = w.Usage.ID
	case w.Value != nil && canonical != nil:
		t.Value = canonical(w.Value)
	}
	return t
}

// DiffTX compares the implementation's writes with the model's: the same
// count, and write i of each agrees on kind, op, address, an entry's parent
// and, where the model states it, the value.
func DiffTX(got, want []ml.TXWrite) error {
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = agrees(got[i], want[i])
	}
	if ok {
		return nil
	}
	return fmt.Errorf("transaction writes differ from pi's order\n impl:  %s\n model: %s%s", ListTX(got), ListTX(want), valueDiff(got, want))
}

// CompareTX is DiffTX(TXWrites(ws), want), rendering a write's value only
// where the model states one, through the Reader's memo of canonical JSON
// for a frame or the lane's configuration (their bytes are canonicalized
// again when the comparison of the committed state reads them back), once
// for any other value; a mismatch is explained by DiffTX in full.
func (r *Reader) CompareTX(ws []store.Write, want []ml.TXWrite) error {
	ok := len(ws) == len(want)
	for i := 0; ok && i < len(ws); i++ {
		var canonical func([]byte) string
		if want[i].Value != "" {
			canonical = r.canonicalOnce
			if ns := ws[i].Namespace; ns == lane.NSAssistantFrame || ns == lane.NSLaneConfig {
				canonical = r.canonical
			}
		}
		ok = agrees(txWrite(ws[i], canonical), want[i])
	}
	if ok {
		return nil
	}
	return DiffTX(TXWrites(ws), want)
}

// agrees reports whether an implementation write g is the model's w.
func agrees(g, w ml.TXWrite) bool {
	key := g.Key == w.Key
	if w.KeyIsPrefix {
		key = len(g.Key) > len(w.Key) && strings.HasPrefix(g.Key, w.Key)
	}
	return g.Kind == w.Kind && g.Op == w.Op && g.Namespace == w.Namespace && key &&
		g.Parent == w.Parent && (w.Value == "" || g.Value == w.Value)
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
