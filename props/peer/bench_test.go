package peer

import "testing"

// The peer measures itself (node's hrtime inside one process), so these
// benchmarks report the peer's figures as metrics rather than timing the
// pipe round trip. They give the pi-ai baseline rows for the Go port's tables.

func BenchmarkPeerEncodeTinyStream(b *testing.B) {
	p := Open(b)
	events := tinyStream()
	b.ResetTimer()
	var ns float64
	for i := 0; i < b.N; i++ {
		var err error
		if ns, err = p.BenchEncode(events, 2000); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(ns, "pi-ns/event")
}

// 10,000 text_delta frames of ~100 bytes: a realistic frame log. (One huge
// delta would measure nothing: JS string concatenation is a rope append.)
func BenchmarkPeerReduce10kDeltas(b *testing.B) {
	p := Open(b)
	frames := manyDeltaFrames(10000, 100)
	b.ResetTimer()
	var mbps float64
	for i := 0; i < b.N; i++ {
		var err error
		if _, mbps, err = p.BenchReduce(frames, 20); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(mbps, "pi-MB/s")
}
