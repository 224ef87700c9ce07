package compaction

import "github.com/frameproof/frameproof/impl/pi"

// orderedSet is a JS Set of strings: insertion order, no duplicates.
type orderedSet struct {
	seen  map[string]bool
	order []string
}

func (s *orderedSet) add(v string) {
	if s.seen[v] {
		return
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[v] = true
	s.order = append(s.order, v)
}

func (s *orderedSet) value() pi.JSONValue {
	out := make([]pi.JSONValue, len(s.order))
	for i, v := range s.order {
		out[i] = pi.StringValue(v)
	}
	return pi.ArrayValue(out)
}

// fileOps is compaction/utils.ts FileOperations.
type fileOps struct{ read, written, edited orderedSet }

func newFileOps() *fileOps { return &fileOps{} }

// fromDetails is extractFileOperations' seed from the previous compaction's
// details: readFiles are read, modifiedFiles edited (string items only).
func (f *fileOps) fromDetails(details pi.JSONValue) {
	if details.Kind() != pi.Object {
		return
	}
	for _, p := range details.Prop("readFiles").Array() {
		if p.Kind() == pi.String {
			f.read.add(p.Str())
		}
	}
	for _, p := range details.Prop("modifiedFiles").Array() {
		if p.Kind() == pi.String {
			f.edited.add(p.Str())
		}
	}
}

// fromMessage is extractFileOpsFromMessage: an assistant message's tool calls
// named read, write or edit with a non-empty string arguments.path.
func (f *fileOps) fromMessage(m pi.JSONValue) {
	if role, _ := str(m, "role"); role != "assistant" {
		return
	}
	for _, b := range m.Prop("content").Array() {
		if t, _ := str(b, "type"); t != "toolCall" {
			continue
		}
		name, _ := str(b, "name")
		path, ok := str(b.Prop("arguments"), "path")
		if !ok || path == "" {
			continue
		}
		switch name {
		case "read":
			f.read.add(path)
		case "write":
			f.written.add(path)
		case "edit":
			f.edited.add(path)
		}
	}
}

// value is durableFileOperations: {read, written, edited} as arrays.
func (f *fileOps) value() pi.JSONValue {
	o := pi.NewObject()
	o.Set("read", f.read.value())
	o.Set("written", f.written.value())
	o.Set("edited", f.edited.value())
	return pi.ObjectValue(o)
}
