package bench

import (
	"context"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
	"github.com/frameproof/frameproof/props/replay"
)

func init() {
	Register(Family{
		Name:    "replay",
		Summary: "replay projection: ns and allocations per stored message per wire at 100/10k/100k messages, and microcompact",
		Run:     runReplay,
		Shape: func(o Options) []TableShape {
			wall, cpu, allocs := replayTables(replaySizes(o))
			return shapesOf(len(replayRows()), wall, cpu, allocs)
		},
	})
}

// replaySizes are the transcript sizes; a flat row is the linear-time claim.
func replaySizes(o Options) []int {
	if o.Quick {
		return []int{100, 1_000}
	}
	return []int{100, 10_000, 100_000}
}

// replayTables are the family's three tables before their rows: one
// column per transcript size.
func replayTables(sizes []int) (wall, cpu, allocs Table) {
	header := []string{"wire"}
	for _, n := range sizes {
		header = append(header, msgCountLabel(n))
	}
	wall = Table{Title: "Replay: wall ns per stored message", Header: header}
	cpu = Table{Title: "Replay: CPU ns per stored message (process user+system, incl. GC)", Header: header}
	allocs = Table{Title: "Replay: heap allocations per stored message", Header: header}
	return wall, cpu, allocs
}

// replayRows are the rows: every wire of the registry, then microcompact.
func replayRows() []string {
	return append(append([]string{}, impl.Wires...), "microcompact")
}

// runReplay projects props/replay.LargeTranscript on every wire (the
// transcript's own model, so reasoning crosses where the wire allows) and
// microcompacts it, and reports per stored message: wall ns, process CPU ns
// (steadier on a shared machine), and heap allocations.
func runReplay(ctx context.Context, o Options) ([]Table, error) {
	sizes := replaySizes(o)
	wall, cpu, allocs := replayTables(sizes)
	transcripts := make([][]pi.Appender, len(sizes))
	for i, n := range sizes {
		transcripts[i] = replay.LargeTranscript(n)
	}
	for _, name := range replayRows() {
		rw, rc, ra := []string{name}, []string{name}, []string{name}
		for i, n := range sizes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			op := replayOp(name, transcripts[i])
			s, err := Measure(o.Budget(), op)
			if err != nil {
				return nil, fmt.Errorf("replay %s at %d messages: %w", name, n, err)
			}
			rw = append(rw, Num(s.WallNs/float64(n)))
			rc = append(rc, Num(s.CPUNs/float64(n)))
			ra = append(ra, Num(s.Allocs/float64(n)))
		}
		wall.Rows = append(wall.Rows, rw)
		cpu.Rows = append(cpu.Rows, rc)
		allocs.Rows = append(allocs.Rows, ra)
	}
	note := "Transcript: props/replay.LargeTranscript (user, assistant with reasoning, text and two calls, results, a dangling call and an orphan result every third round). " +
		"Target ≤ 1 µs per message at 100k on every wire, flat across sizes."
	wall.Notes = []string{note, "Printed by `go run ./cmd/frameproof bench --family replay`."}
	return []Table{wall, cpu, allocs}, nil
}

// replayOp is one projection onto wire name, or one microcompaction.
func replayOp(name string, msgs []pi.Appender) func() error {
	if name == "microcompact" {
		return func() error {
			_, _, err := impl.Microcompact(msgs, impl.DefaultMicrocompact())
			return err
		}
	}
	tg := impl.Target{Wire: name, Provider: "p", Model: "m"}
	return func() error {
		_, err := impl.Project(msgs, tg, impl.Options{})
		return err
	}
}

func msgCountLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM msgs", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk msgs", n/1_000)
	}
	return fmt.Sprintf("%d msgs", n)
}
