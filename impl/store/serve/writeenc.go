package serve

import "github.com/frameproof/frameproof/impl/store"

// AppendWrite appends w as pi's Write object (commit.ts insertEntry,
// insertUsage; values.ts setValue, deleteValue, appendList, deleteList),
// the form DecodeWrite reads back. The protocol's clients
// (props/storeconform, props/picrash) encode their commits with it.
func AppendWrite(b []byte, w store.Write) []byte {
	b = append(b, `{"kind":`...)
	b = store.AppendJSString(b, string(w.Kind))
	switch w.Kind {
	case store.WriteEntry:
		b = append(b, `,"entry":`...)
		b = append(b, w.Entry.Raw...)
	case store.WriteUsage:
		b = append(b, `,"row":`...)
		b = append(b, w.Usage.Raw...)
	default:
		b = append(b, `,"op":`...)
		b = store.AppendJSString(b, string(w.Op))
		b = append(b, `,"namespace":`...)
		b = store.AppendJSString(b, w.Namespace)
		b = append(b, `,"key":`...)
		b = store.AppendJSString(b, w.Key)
		if w.Value != nil {
			b = append(b, `,"value":`...)
			b = append(b, w.Value...)
		}
	}
	return append(b, '}')
}
