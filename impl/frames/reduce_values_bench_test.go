package frames

import (
	"testing"

	"github.com/frameproof/frameproof/impl/pi"
)

// BenchmarkReduceStored compares the two readings of a stored frame list,
// from the stored bytes to the message, side by side: strict (pi.ParseFrame
// + Reduce, the old recovery path and `reduce --strict`), as pi-ai
// (pi.ParseJSON + ReduceValues) and as pi-ai from the bytes (ReduceJSON,
// recovery, Snapshot and `reduce`, with the message's JSON written too).
func BenchmarkReduceStored(b *testing.B) {
	for _, sz := range benchSizes[:3] {
		enc := NewEncoder()
		var stored []string
		bytes := 0
		for _, ev := range benchStream(sz.size) {
			if f, _ := enc.Encode(ev); f != nil {
				stored = append(stored, string(f.AppendJSON(nil)))
				bytes += len(stored[len(stored)-1]) + 1
			}
		}
		b.Run("strict/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			for i := 0; i < b.N; i++ {
				fs := make([]pi.Frame, len(stored))
				for j, s := range stored {
					f, err := pi.ParseFrame(s)
					if err != nil {
						b.Fatal(err)
					}
					fs[j] = *f
				}
				if _, err := Reduce(fs); err != nil {
					b.Fatal(err)
				}
			}
		})
		lines := make([][]byte, len(stored))
		for j, s := range stored {
			lines[j] = []byte(s)
		}
		b.Run("json/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			var buf []byte
			for i := 0; i < b.N; i++ {
				m, err := ReduceJSON(lines)
				if err != nil {
					b.Fatal(err)
				}
				buf = m.AppendJSON(buf[:0])
			}
		})
		b.Run("write/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			var buf []byte
			var s StoredReducer
			for i := 0; i < b.N; i++ {
				var err error
				if buf, _, err = s.AppendReducedJSON(buf[:0], lines); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("piai/"+sz.name, func(b *testing.B) {
			b.SetBytes(int64(bytes))
			for i := 0; i < b.N; i++ {
				vs := make([]pi.JSONValue, len(stored))
				for j, s := range stored {
					v, err := pi.ParseJSON(s)
					if err != nil {
						b.Fatal(err)
					}
					vs[j] = v
				}
				if _, err := ReduceValues(vs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
