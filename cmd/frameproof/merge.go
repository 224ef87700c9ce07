package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/sim/campaign"
)

// merge judges a sharded campaign as one: the union of the shards' JSON
// reports (sim --json), with race coverage judged over all of them.

func init() {
	register("merge", "merge the JSON reports of sim shards into one verdict (JSON, JUnit)", runMerge)
}

const mergeUsage = "usage: frameproof merge [--json] [--junit FILE] [--max-input N] sim-0.json sim-1.json ..."

// defaultMaxReport bounds one shard report: a campaign's report is a few
// hundred KiB even with many failures and their tapes.
const defaultMaxReport = 256 << 20

func runMerge(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the merged report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file")
	maxInput := fs.Int64("max-input", defaultMaxReport, "largest shard report accepted, in bytes")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "Each shard of a campaign runs `frameproof sim --shard i/n --json > sim-i.json` (with")
		fmt.Fprintln(w, "--defer-coverage, so that a shard that misses a race order on its own is not inconclusive);")
		fmt.Fprintln(w, "merge adds up their counts, race coverage and failures and judges the whole campaign.")
		fmt.Fprintln(w, "A report is untrusted input: one whose counts contradict each other or its campaign is")
		fmt.Fprintln(w, "refused (exit 2) with the field named. Missing shards are counted, and the first 20 listed.")
	}
	if code := parseFlags(fs, args, mergeUsage, help, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "merge", "give the shard reports to merge (sim --json output)")
	}
	if *maxInput <= 0 {
		return usageError(stderr, "merge", "--max-input must be positive, got %d", *maxInput)
	}
	if err := checkOutputFile("--junit", *junit); err != nil {
		return ioError(stderr, "merge", "%v", err)
	}
	var shards []campaign.Report
	for _, path := range fs.Args() {
		r, code, err := readShardReport(path, *maxInput)
		if err != nil {
			fmt.Fprintf(stderr, "frameproof merge: %v\n", err)
			return code
		}
		shards = append(shards, r)
	}
	merged, missing, err := campaign.Merge(shards)
	if err != nil {
		return usageError(stderr, "merge", "%s", trimPrefix(err, "campaign: merge"))
	}
	rep := judgeSim(&merged)
	if missing.Count > 0 {
		total := missing.Count + len(shards)
		var names []string
		for _, i := range missing.First {
			names = append(names, fmt.Sprintf("%d/%d", i, total))
		}
		list := strings.Join(names, ", ")
		if len(missing.First) < missing.Count {
			list = fmt.Sprintf("%d of %d, the first %d: %s, ...", missing.Count, total, len(missing.First), list)
		}
		note := "shard reports missing: " + list + "; the merge covers only the shards given"
		rep.Note = strings.TrimPrefix(rep.Note+"; "+note, "; ")
		rep.finish()
		merged.Verdict = rep.Verdict
	}
	code := rep.writeJUnitKeeping(*junit, "frameproof merge", rep.ExitCode, stderr)
	if *asJSON {
		_ = rep.writeJSON(stdout) // dispatch's checked stdout reports a failed write
		return code
	}
	fmt.Fprintf(stdout, "merged %d shard reports (%s)\n", len(shards), strings.Join(merged.Merged, ", "))
	printSimSummary(stdout, rep)
	return code
}

// readShardReport reads one `sim --json` report; the exit code says what
// went wrong (4 unreadable, 2 not a sim report).
// coverageGoalsOf is the race rows a campaign of the named scenarios
// covers, from the suite's registry (an unknown name adds none; Validate
// refuses it).
func coverageGoalsOf(names []string) []campaign.RaceRow {
	var scs []campaign.Scenario
	for _, sc := range activeSuite.Scenarios() {
		if slices.Contains(names, sc.Name) {
			scs = append(scs, sc)
		}
	}
	return campaign.CoverageGoals(activeSuite.RaceRows(), scs)
}

func readShardReport(path string, maxBytes int64) (campaign.Report, int, error) {
	data, code, err := readBounded(path, path, "--max-input", maxBytes)
	if err != nil {
		return campaign.Report{}, code, err
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return campaign.Report{}, exitUsage, fmt.Errorf("%s: not a JSON report: %w", path, err)
	}
	switch {
	case rep.Schema != ReportSchema:
		return campaign.Report{}, exitUsage, fmt.Errorf("%s: report schema %d, want %d", path, rep.Schema, ReportSchema)
	case rep.Command != "sim" || rep.Sim == nil:
		return campaign.Report{}, exitUsage, fmt.Errorf("%s: not a sim report (command %q): merge takes `frameproof sim --json` output", path, rep.Command)
	case rep.Verdict != "" && rep.Verdict != rep.Sim.Verdict:
		return campaign.Report{}, exitUsage, fmt.Errorf("%s: contradicts itself: verdict %q, but sim.verdict %q", path, rep.Verdict, rep.Sim.Verdict)
	}
	if err := campaign.ValidateCoverage(*rep.Sim, coverageGoalsOf(rep.Sim.Scenarios)); err != nil {
		return campaign.Report{}, exitUsage, fmt.Errorf("%s: %w", path, err)
	}
	return *rep.Sim, -1, nil
}
