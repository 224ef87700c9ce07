package campaign

import "github.com/frameproof/frameproof/sim/choice"

// Report is one campaign over scenarios x backends, as `frameproof sim
// --json` prints it (its "sim" object): one shard's run, or the merge of
// several (Merge).
type Report struct {
	BaseSeed  uint64   `json:"baseSeed"`
	Seeds     int      `json:"seeds"` // per scenario x backend, before sharding
	Shard     string   `json:"shard"` // "i/n"; "all/n" for a merge of every shard
	Budget    string   `json:"budget,omitempty"`
	Bugs      []string `json:"bugs,omitempty"`
	Scenarios []string `json:"scenarios"`
	Backends  []string `json:"backends"`
	// CoverageDeferred says this shard left the race-coverage verdict to
	// the merge of all shards (its Coverage still counts its own runs).
	CoverageDeferred bool `json:"coverageDeferred,omitempty"`
	// Merged lists the shards a merged report was built from.
	Merged []string `json:"merged,omitempty"`
	// Verdict is the CLI report's verdict: "pass", "fail",
	// "inconclusive" (or "interrupted").
	Verdict  string        `json:"verdict"`
	Cells    []Cell        `json:"cells"`
	Coverage []CoverageRow `json:"coverage"`
	// Reach counts the runs that reached each of the suite's reach items
	// (reach.go); informational, it sets no coverage goal.
	Reach      []ReachCount      `json:"reach,omitempty"`
	Throughput Throughput        `json:"throughput"`
	Failures   []ReportedFailure `json:"failures"`
}

// Cell is one scenario x backend campaign.
type Cell struct {
	Scenario string `json:"scenario"`
	Backend  string `json:"backend"`
	Planned  int    `json:"planned"` // seeds this shard owns
	Runs     int    `json:"runs"`
	Passed   int    `json:"passed"`
	Failed   int    `json:"failed"`
	Steps    int64  `json:"steps"`
	// StoppedBy names the budget that ended the cell early: "steps",
	// "duration" or "failures"; "" if every planned seed ran.
	StoppedBy string `json:"stoppedBy,omitempty"`
	// DurationSeconds is the cell's wall time, re-runs and shrinking of
	// failures included; RunSeconds only the seeds' first runs, from which
	// RunsPerSecond and StepsPerSecond (the simulator's speed) are taken.
	DurationSeconds float64 `json:"durationSeconds"`
	RunSeconds      float64 `json:"runSeconds"`
	RunsPerSecond   float64 `json:"runsPerSecond"`
	StepsPerSecond  float64 `json:"stepsPerSecond"`
	// Crashes and DistinctCrashImages: Summary's crash counts.
	Crashes             int    `json:"crashes"`
	DistinctCrashImages int    `json:"distinctCrashImages"`
	Verdict             string `json:"verdict"` // pass | fail | error | not run
	Error               string `json:"error,omitempty"`
}

// CoverageRow is one race row: how many runs took each of its orders.
type CoverageRow struct {
	Row     string       `json:"row"`
	Name    string       `json:"name"`
	Orders  []OrderCount `json:"orders"`
	Covered bool         `json:"covered"` // both orders taken at least once
}

// OrderCount counts the runs that took one order of a race row.
type OrderCount struct {
	Order string `json:"order"`
	Runs  int    `json:"runs"`
}

// Throughput is the whole campaign's speed (wall time, all jobs).
type Throughput struct {
	Runs           int     `json:"runs"`
	Steps          int64   `json:"steps"`
	WallSeconds    float64 `json:"wallSeconds"`
	Jobs           int     `json:"jobs"`
	RunsPerSecond  float64 `json:"runsPerSecond"`
	StepsPerSecond float64 `json:"stepsPerSecond"`
	// Crashes and DistinctCrashImages sum the cells' counts (a disk image is
	// counted once per cell).
	Crashes             int `json:"crashes"`
	DistinctCrashImages int `json:"distinctCrashImages"`
}

// ReportedFailure is one failing seed with its reproduction.
type ReportedFailure struct {
	Scenario    string      `json:"scenario"`
	Backend     string      `json:"backend"`
	Bugs        []string    `json:"bugs,omitempty"`
	Seed        uint64      `json:"seed"`
	Kind        FailureKind `json:"kind"`
	Message     string      `json:"message"`
	Repro       string      `json:"repro"` // the one-line reproduction command
	TraceHash   string      `json:"traceHash"`
	RerunHashes []string    `json:"rerunHashes"`
	TapeLen     int         `json:"tapeLen"`
	// ShrunkTapeLen is the length of the delta-debugged tape that still
	// fails with Kind; ShrunkMessage what it fails with.
	ShrunkTapeLen int         `json:"shrunkTapeLen"`
	ShrunkMessage string      `json:"shrunkMessage,omitempty"`
	ShrunkTape    choice.Tape `json:"shrunkTape,omitempty"`
	// Files lists what --tape-dir and --report-dir wrote for this failure.
	Files []string `json:"files,omitempty"`
}
