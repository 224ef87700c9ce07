package subject

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/frameproof/frameproof/sim/choice"
	"github.com/frameproof/frameproof/sim/lanesim"
)

// Factory makes a fresh subject for one run.
type Factory func() (Subject, error)

// CampaignOptions configure a campaign of seeds over scenarios and
// session kinds.
type CampaignOptions struct {
	Subject   string // the subject's name, for reproduction lines
	New       Factory
	Scenarios []Scenario // nil: all
	Sessions  []Session  // nil: all
	Seeds     int
	FirstSeed uint64
	// TempDir holds each run's session files (removed after the run).
	TempDir string
	// MaxFailures stops a cell after this many failing seeds (0: 1).
	MaxFailures int
	// Progress, when set, is told about each finished run.
	Progress func(Outcome, uint64)
	// Stop, when set, is asked before each run; true ends the campaign
	// there (Report.Stopped).
	Stop func() bool
	// Run holds the per-release run options (StoredDelayCap); its Session
	// and Dir are the campaign's own.
	Run Options
}

// Failure is one failing run with its reproduction line.
type Failure struct {
	Seed    uint64
	Outcome Outcome
	Repro   string
}

// Report is a campaign's result.
type Report struct {
	Subject    string
	Runs       int
	TXCompared int
	// InvariantChecks counts sim/invariants' checks on committed state.
	InvariantChecks int
	Failures        []Failure
	Coverage        map[string]map[string]int // row → order → runs that reached it
	Divergences     map[DivergenceID]int
	Cells           []string
	// Stopped: CampaignOptions.Stop ended the campaign before its last run.
	Stopped bool
}

// Unreached lists the orders of the rows this subject expresses that no
// run took ("row/order"), but for the orders it cannot take. A campaign
// with any is inconclusive, as the in-process campaign's race coverage is.
func (rep Report) Unreached() []string {
	skip := map[string]bool{}
	for _, ne := range NotExpressible {
		skip[ne.Row] = true
	}
	var out []string
	for _, row := range lanesim.RaceRows() {
		if skip[row.ID] {
			continue
		}
		for _, o := range row.Orders {
			if rep.Coverage[row.ID][o] == 0 && unreachable[row.ID+"/"+o] == "" {
				out = append(out, row.ID+"/"+o)
			}
		}
	}
	return out
}

// Repro is the one command that reproduces a run.
func Repro(subject string, sc string, session Session, seed uint64) string {
	return fmt.Sprintf("frameproof sim --subject %s --scenario %s --session %s --seed %d --seeds 1", subject, sc, session, seed)
}

// Campaign runs every seed of every scenario x session cell.
func Campaign(opts CampaignOptions) (Report, error) {
	scs, sessions := opts.Scenarios, opts.Sessions
	if scs == nil {
		scs = Scenarios
	}
	if sessions == nil {
		sessions = Sessions
	}
	maxFail := opts.MaxFailures
	if maxFail == 0 {
		maxFail = 1
	}
	rep := Report{Subject: opts.Subject, Coverage: map[string]map[string]int{}, Divergences: map[DivergenceID]int{}}
	for _, sc := range scs {
		for _, session := range sessions {
			rep.Cells = append(rep.Cells, sc.Name+"/"+string(session))
			failed := 0
			for i := 0; i < opts.Seeds && failed < maxFail; i++ {
				if opts.Stop != nil && opts.Stop() {
					rep.Stopped = true
					return rep, nil
				}
				seed := opts.FirstSeed + uint64(i)
				out, err := runOne(opts, sc, session, seed)
				if opts.Stop != nil && opts.Stop() {
					// the stop cut this run short (its subject killed):
					// neither a verdict nor coverage
					rep.Stopped = true
					return rep, nil
				}
				if err != nil {
					return rep, err
				}
				if out.Unavailable != nil {
					return rep, out.Unavailable
				}
				rep.Runs++
				rep.TXCompared += out.TXCompared
				rep.InvariantChecks += out.InvariantChecks
				for row, orders := range out.Races {
					if rep.Coverage[row] == nil {
						rep.Coverage[row] = map[string]int{}
					}
					for o := range orders {
						rep.Coverage[row][o]++
					}
				}
				for id, n := range out.Divergences {
					rep.Divergences[id] += n
				}
				if out.Failed {
					failed++
					rep.Failures = append(rep.Failures, Failure{Seed: seed, Outcome: out, Repro: Repro(opts.Subject, sc.Name, session, seed)})
				}
				if opts.Progress != nil {
					opts.Progress(out, seed)
				}
			}
		}
	}
	return rep, nil
}

func runOne(opts CampaignOptions, sc Scenario, session Session, seed uint64) (Outcome, error) {
	sub, err := opts.New()
	if err != nil {
		return Outcome{}, err
	}
	dir, err := os.MkdirTemp(opts.TempDir, "run-*")
	if err != nil {
		return Outcome{}, fmt.Errorf("subject: temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	run := opts.Run
	run.Session, run.Dir = session, dir
	return Run(sub, sc, choice.NewSeeded(seed), run), nil
}

// Determinism runs one seed n times and counts the distinct traces (ids
// and times renamed by first appearance) and verdicts.
func Determinism(opts CampaignOptions, sc Scenario, session Session, seed uint64, n int) (traces, verdicts int, err error) {
	seenT, seenV := map[string]bool{}, map[string]bool{}
	for i := 0; i < n; i++ {
		out, err := runOne(opts, sc, session, seed)
		if err != nil {
			return 0, 0, err
		}
		if out.Unavailable != nil {
			return 0, 0, out.Unavailable
		}
		seenT[strings.Join(out.Trace, "\n")] = true
		seenV[fmt.Sprintf("%t %s %s", out.Failed, out.Kind, out.Message)] = true
	}
	return len(seenT), len(seenV), nil
}

// WriteCoverage prints the coverage table: every race row, the runs that
// reached each of its orders on this subject, or why the row cannot be
// expressed through the subject's API.
func (rep Report) WriteCoverage(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "race coverage on %s (%d runs, %d transactions compared, %d invariant checks of the committed state):\n",
		rep.Subject, rep.Runs, rep.TXCompared, rep.InvariantChecks)
	why := map[string]string{}
	for _, ne := range NotExpressible {
		why[ne.Row] = ne.Why
	}
	for _, row := range lanesim.RaceRows() {
		if w, ok := why[row.ID]; ok {
			fmt.Fprintf(&b, "  %-34s not expressed: %s\n", row.ID, w)
			continue
		}
		fmt.Fprintf(&b, "  %-34s", row.ID)
		for _, o := range row.Orders {
			n := rep.Coverage[row.ID][o]
			mark := "reached"
			if n == 0 {
				mark = "NOT reached"
			}
			fmt.Fprintf(&b, "  %s: %d (%s)", o, n, mark)
		}
		for _, o := range row.Orders {
			if note := unreachable[row.ID+"/"+o]; note != "" {
				fmt.Fprintf(&b, "\n  %-34s  note: %s", "", note)
			}
		}
		if note := rowNotes[row.ID]; note != "" {
			fmt.Fprintf(&b, "\n  %-34s  note: %s", "", note)
		}
		b.WriteString("\n")
	}
	if len(rep.Divergences) > 0 {
		b.WriteString("decided differences met (id: times; decision):\n")
		ids := make([]string, 0, len(rep.Divergences))
		for id := range rep.Divergences {
			ids = append(ids, string(id))
		}
		sort.Strings(ids)
		for _, id := range ids {
			d := divergence(DivergenceID(id))
			fmt.Fprintf(&b, "  %s: %d; %s\n", id, rep.Divergences[DivergenceID(id)], d.Decision)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unreachable explains an order ("row/order") pi's scheduling never takes
// through this boundary.
var unreachable = map[string]string{
	lanesim.RowUpdateCommit + "/" + lanesim.OrderCommitFirst: "commit-first cannot happen on pi: its observer emits message_update in the same turn it admits the frame's append, and the gate parks the append until the simulator releases it",
}

// rowNotes say how this boundary reaches a row's orders, where that is
// not the obvious way.
var rowNotes = map[string]string{
	lanesim.RowPollReplacement: "both orders are pi's public Lane API: suspended-without-permit through Lane.drive (pollDeferred false), replaced-at-once through Lane.resume (the one call that carries a poll permit); JSONL sessions only, a memory session's storage dies with the process and no orphaned poll survives it",
}

func divergence(id DivergenceID) Divergence {
	for _, d := range Divergences {
		if d.ID == id {
			return d
		}
	}
	return Divergence{ID: id}
}

// TempDir is a directory for a campaign's session files.
func TempDir() (string, error) {
	return os.MkdirTemp("", "frameproof-subject-*")
}
