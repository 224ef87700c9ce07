package store_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/frameproof/frameproof/impl/store"
)

// sessionLines returns the committed writes of a pi session of about lines
// lines, one transaction per line, shaped as props/bench's GenerateSession:
// per turn a user entry, the intent (op state + first frame), 20 frames and
// the settlement (assistant entry, usage, tip, frame-list delete, op state).
func sessionLines(lines int) [][]store.CommittedWrite {
	var out [][]store.CommittedWrite
	seq := int64(1)
	line := func(ws ...store.Write) {
		c := make([]store.CommittedWrite, len(ws))
		for i, w := range ws {
			c[i] = store.CommittedWrite{Write: w, Seq: seq, Timestamp: 1767225600000}
			seq++
		}
		out = append(out, c)
	}
	frame := json.RawMessage(`{"type":"text_delta","contentIndex":0,"delta":"streamed words of the reply, "}`)
	parent := ""
	for turn := 0; len(out) < lines; turn++ {
		op, user, resp := fmt.Sprintf("op%d", turn), fmt.Sprintf("u%d", turn), fmt.Sprintf("r%d", turn)
		frames := store.Address{Namespace: "pi.pending.assistant_frame", Key: op + ":" + resp, Kind: store.KindList}
		state := store.Address{Namespace: "pi.op.state", Key: op, Kind: store.KindValue}
		line(entry(user, parent))
		line(store.SetValueRaw(state, json.RawMessage(`{"at":"assistant.effect_pending"}`)), store.AppendListRaw(frames, frame))
		for range 20 {
			line(store.AppendListRaw(frames, frame))
		}
		line(entry(resp, user), usage("us"+resp),
			store.SetValueRaw(store.Address{Namespace: "pi.branch.tip", Key: "main", Kind: store.KindValue}, json.RawMessage(`"`+resp+`"`)),
			store.DeleteListRaw(frames), store.SetValueRaw(state, json.RawMessage(`{"at":"settled"}`)))
		parent = resp
	}
	return out[:lines]
}

// BenchmarkApplySession replays a session into a fresh State a line at a
// time, as the JSONL open does: the State's share of opening a session.
func BenchmarkApplySession(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		lines := sessionLines(n)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				s := store.NewState()
				for _, l := range lines {
					s.Apply(l)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
		})
	}
}

// BenchmarkSnapshotSession takes the snapshot compaction writes, of a
// session state with one response still streaming.
func BenchmarkSnapshotSession(b *testing.B) {
	s := store.NewState()
	for _, l := range sessionLines(10_000 + 12) { // ends mid-response
		s.Apply(l)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = s.Snapshot()
	}
}

// piHundred is pi's "commit 100 message entries" transaction
// (harness/session/testing/benchmark/storage.js): entries of 256-byte
// text payloads in one linear branch.
func piHundred() []store.Write {
	out := make([]store.Write, 100)
	for i := range out {
		id := fmt.Sprintf("benchmark-entry-%08d", i)
		var parent *string
		parentJSON := "null"
		if i > 0 {
			p := fmt.Sprintf("benchmark-entry-%08d", i-1)
			parent, parentJSON = &p, `"`+p+`"`
		}
		text := id + ":" + strings.Repeat("x", 256-len(id)-1)
		raw := fmt.Sprintf(`{"id":%q,"parentId":%s,"type":"message","message":{"role":"user","content":[{"type":"text","text":%q}],"timestamp":1650000000000}}`,
			id, parentJSON, text)
		out[i] = store.InsertEntry(store.Entry{ID: id, ParentID: parent, Raw: json.RawMessage(raw)})
	}
	return out
}

// BenchmarkPrepareApplyHundred is the State's share of pi's "commit 100
// message entries": prepare (normalize, validate) and apply on a new
// State, as the memory backend commits (State.Commit).
func BenchmarkPrepareApplyHundred(b *testing.B) {
	tx := piHundred()
	cpuLoop(b, func() {
		s := store.NewState()
		if _, err := s.Commit(tx, 1650000000000); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPrepareHundred is the floor under that scenario: Prepare
// alone, which checks each row's raw JSON (syntax, keys, id and parent)
// and copies it, work pi's commit does not do (its entries are JS
// objects, spread, never parsed).
func BenchmarkPrepareHundred(b *testing.B) {
	tx := piHundred()
	cpuLoop(b, func() {
		if _, err := store.Prepare(tx, 1, 1650000000000); err != nil {
			b.Fatal(err)
		}
	})
}

// cpuLoop runs f b.N times and reports the process's CPU ns per op (user
// and system, every thread: the collector's too) beside the wall time,
// the figure a loaded machine leaves standing (pi-storage's unit).
func cpuLoop(b *testing.B, f func()) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for range b.N {
		f()
	}
	b.ReportMetric(float64((processCPU()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkCommitTxNewState is the State's share of pi's "commit one
// message entry" and "commit 100 message entries" as the memory backend
// commits a prepared Tx: CommitTx on new States (made outside the clock
// reads, as pi-storage makes its stores), CPU per commit over groups of a
// hundred.
func BenchmarkCommitTxNewState(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			tx, err := store.NewTx(piHundred()[:n])
			if err != nil {
				b.Fatal(err)
			}
			const group = 100
			states := make([]*store.State, group)
			var cpu time.Duration
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				for k := range states {
					states[k] = store.NewState()
				}
				b.StartTimer()
				c0 := processCPU()
				for _, s := range states {
					if _, err := s.CommitTx(tx, 1650000000000); err != nil {
						b.Fatal(err)
					}
				}
				cpu += processCPU() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*group), "cpu-ns/commit")
		})
	}
}

// processCPU is the process's user and system CPU time, every thread's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
