package provider

import (
	"fmt"
	"sort"
	"strings"

	impl "github.com/frameproof/frameproof/impl/provider"
)

// FuzzOptions describe a fuzz campaign of one subject on one wire: the
// generated scenarios of seeds Seed..Seed+Seeds-1, each run through the
// subject and checked against the event contract.
type FuzzOptions struct {
	Wire    impl.Wire
	Subject Subject
	Seed    int // first seed
	Seeds   int // number of streams
	Run     RunOptions
	// Command re-runs this campaign from the command line; a failing
	// seed's reproduction is Command + " --seed N --seeds 1 --save 0".
	Command string
	// CorpusDir, when not "", receives up to MaxSaved shrunk failures per
	// distinct set of broken rules.
	CorpusDir string
	MaxSaved  int
	// Progress, when set, is called before every seed divisible by 50
	// with the streams run and failed so far.
	Progress func(done, failed int)
	// SaveError, when set, hears about every shrunk failure that could
	// not be written to CorpusDir (the campaign goes on).
	SaveError func(error)
	// Stop, when set, is polled before every seed; once it reports true
	// no more seeds run and the summary is marked Interrupted.
	Stop func() bool
}

// FuzzSummary is the outcome of Fuzz, as `frameproof provider fuzz --json`
// prints it.
type FuzzSummary struct {
	Wire       string         `json:"wire"`
	Subject    string         `json:"subject"`
	Streams    int            `json:"streams"`
	Failed     int            `json:"failed"`
	Verdicts   map[string]int `json:"verdicts"` // streams breaking each rule
	Reproducer []string       `json:"reproducers,omitempty"`
	Corpus     []string       `json:"corpus,omitempty"`
	// SaveErr is the last shrunk failure that could not be saved.
	SaveErr error `json:"-"`
	// Interrupted says Stop ended the campaign after Streams of the seeds.
	Interrupted bool `json:"interrupted,omitempty"`
}

// maxReproducers caps the reproduction lines a summary lists.
const maxReproducers = 20

// FuzzError is a seed the harness could not run (not a contract verdict):
// the campaign stops there.
type FuzzError struct {
	Seed int
	Err  error
}

func (e *FuzzError) Error() string { return fmt.Sprintf("provider: fuzz: seed %d: %v", e.Seed, e.Err) }
func (e *FuzzError) Unwrap() error { return e.Err }

// Fuzz runs the campaign. A failing seed is counted per broken rule, gets
// its reproduction line and, with a CorpusDir, is shrunk to the smallest
// scenario still breaking one of its rules and saved.
func Fuzz(opts FuzzOptions) (FuzzSummary, error) {
	sum := FuzzSummary{Wire: string(opts.Wire), Subject: opts.Subject.Name(), Verdicts: map[string]int{}}
	savedPerRules := map[string]int{}
	gen := GenScenario(opts.Wire)
	for seed := opts.Seed; seed < opts.Seed+opts.Seeds; seed++ {
		if opts.Stop != nil && opts.Stop() {
			sum.Interrupted = true
			return sum, nil
		}
		if opts.Progress != nil && seed%50 == 0 {
			opts.Progress(seed-opts.Seed, sum.Failed)
		}
		sc := gen.Example(seed)
		res, err := RunScenarioWith(opts.Subject, sc, opts.Run)
		if err != nil {
			return sum, &FuzzError{Seed: seed, Err: err}
		}
		sum.Streams++
		if !res.Failed() {
			continue
		}
		sum.Failed++
		rules := ruleSet(res.Violations)
		for _, r := range rules {
			sum.Verdicts[r]++
		}
		// --save 0: reproducing a failure must not rewrite the corpus.
		repro := fmt.Sprintf("%s --seed %d --seeds 1 --save 0", opts.Command, seed)
		if len(sum.Reproducer) < maxReproducers {
			sum.Reproducer = append(sum.Reproducer, repro)
		}
		key := strings.Join(rules, ",")
		if opts.CorpusDir == "" || savedPerRules[key] >= opts.MaxSaved {
			continue
		}
		savedPerRules[key]++
		path, err := saveShrunk(opts, sc, rules, repro, seed)
		switch {
		case err != nil:
			sum.SaveErr = err
			if opts.SaveError != nil {
				opts.SaveError(err)
			}
		case path != "":
			sum.Corpus = append(sum.Corpus, path)
		}
	}
	return sum, nil
}

// saveShrunk shrinks a failing scenario to one still breaking one of rules
// and writes it as a corpus entry; "" and no error when the shrunk
// scenario could not be re-run.
func saveShrunk(opts FuzzOptions, sc Scenario, rules []string, repro string, seed int) (string, error) {
	shrunk := Shrink(sc, func(c Scenario) bool {
		r, err := RunScenarioWith(opts.Subject, c, opts.Run)
		return err == nil && overlaps(ruleSet(r.Violations), rules)
	})
	final, err := RunScenarioWith(opts.Subject, shrunk, opts.Run)
	if err != nil {
		return "", nil
	}
	entry := NewCorpusEntry(opts.Subject.Name(), repro, final)
	name := fmt.Sprintf("%s-%s-seed%d", opts.Wire, sanitize(opts.Subject.Name()), seed)
	return WriteCorpusEntry(opts.CorpusDir, name, entry)
}

func ruleSet(vs []Violation) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v.Rule] {
			seen[v.Rule] = true
			out = append(out, v.Rule)
		}
	}
	sort.Strings(out)
	return out
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// sanitize makes a subject name safe in a file name.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
