package jsonlpi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store/jsonl"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// The other direction of one file format, two implementations: every
// session pi's own harness writes opens in frameproof's JSONL store with the
// state pi's JsonlStorage reports for it.
//
// The sessions come from corpus/peers/pi-agent-core/recovery-sweep.mjs:
// pi's AgentHarness over pi's JsonlSessionRepo with pi-ai's fauxProvider,
// in its named scripted runs (text, thinking, a tool call, two prompts, a
// retry, a deferred reply, slow retries, no retries, an abort) and in
// seeded random runs over the same ingredients (several prompts, tool
// calls, retryable and fatal errors, length stops, aborts). Every crash
// image the sweep makes (the header and the first k commit lines: a whole
// session pi wrote, cut at a commit boundary) is one session, and the image
// followed by what pi's reopened harness appended (its recovery) another;
// the last image of a run is the whole session. Each opens through
// jsonl-open.mjs in pi's JsonlStorage.open and through jsonl.Open, and
// compare requires the same entries, usage rows, values, lists, stats and
// next seq.
//
// Budget: piRunsEnv random runs (default 4, about 100 sessions beyond the
// named runs' 300; FRAMEPROOF_PIWRITTEN_RUNS=300 is the larger run, a few
// minutes), seeded by piSeedEnv (default 1).
const (
	piRunsEnv = "FRAMEPROOF_PIWRITTEN_RUNS"
	piSeedEnv = "FRAMEPROOF_PIWRITTEN_SEED"
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

type sweepPoint struct {
	Run     string   `json:"run"`
	K       int      `json:"k"`
	Crashed string   `json:"crashed"`
	Reopen  []string `json:"reopen"`
	Summary *struct {
		Runs   int `json:"runs"`
		Points int `json:"points"`
	} `json:"summary"`
}

// piWrittenSessions runs the sweep and returns its distinct sessions, each
// named by run, crash point and whether pi's reopen is appended.
func piWrittenSessions(t *testing.T, random, seed int) (names []string, contents [][]byte) {
	dir := peer.Require(t, peer.PiAgentCore)
	node := peer.RequireNode(t)
	args := []string{filepath.Join(dir, "recovery-sweep.mjs")}
	if random > 0 {
		args = append(args, "--random", strconv.Itoa(random), "--seed", strconv.Itoa(seed))
	}
	cmd := procgroup.CommandContext(t.Context(), node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("recovery-sweep.mjs %s: %v\n%s", strings.Join(args[1:], " "), err, stderr.String())
	}
	seen := map[string]bool{}
	add := func(name, content string) {
		if !seen[content] {
			seen[content] = true
			names = append(names, name)
			contents = append(contents, []byte(content))
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	summarized := false
	for sc.Scan() {
		var p sweepPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("recovery-sweep.mjs printed %.200s: %v", sc.Bytes(), err)
		}
		if p.Summary != nil {
			summarized = true
			continue
		}
		add(fmt.Sprintf("%s@%d", p.Run, p.K), p.Crashed)
		if len(p.Reopen) > 0 {
			add(fmt.Sprintf("%s@%d+reopen", p.Run, p.K), p.Crashed+strings.Join(p.Reopen, "\n")+"\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading recovery-sweep.mjs's output: %v", err)
	}
	if !summarized {
		t.Fatalf("recovery-sweep.mjs printed no summary (%d bytes, %d sessions)", len(out), len(contents))
	}
	return names, contents
}

func TestPiWrittenSessionsOpenAlike(t *testing.T) {
	random, seed := envInt(piRunsEnv, 4), envInt(piSeedEnv, 1)
	names, contents := piWrittenSessions(t, random, seed)
	o := startOpener(t)
	dir := t.TempDir()
	strictRefused := 0
	for i, content := range contents {
		path := filepath.Join(dir, fmt.Sprintf("p%d.jsonl", i))
		diff, err := compare(o, path, content, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff != "" {
			t.Errorf("%s (%s=%d %s=%d): %s\nfile:\n%s", names[i], piRunsEnv, random, piSeedEnv, seed, diff, content)
			continue
		}
		// frameproof's Strict refuses only what its own writer never
		// writes; pi's writer must not need the lenient default either.
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := jsonl.Open(env.Production(), path, jsonl.Options{Sync: jsonl.SyncNever, Strict: true})
		if err != nil {
			strictRefused++
			t.Errorf("%s: frameproof's Strict open refuses a session pi wrote: %v", names[i], err)
			continue
		}
		_ = s.Close()
	}
	t.Logf("%d sessions pi wrote (%d random runs, seed %d) open alike; Strict refused %d", len(contents), random, seed, strictRefused)
}
