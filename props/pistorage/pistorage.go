// Package pistorage runs pi's own storage test kit (npm
// @earendil-works/pi-agent-core, pinned in corpus/peers/pi-agent-core)
// against a store served over the frameproof-store protocol
// (impl/store/serve), through corpus/peers/pi-agent-core/storage-adapter.mjs.
package pistorage

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// Adapter is the adapter script inside the pi-agent-core peer directory.
const Adapter = "storage-adapter.mjs"

// Case is one case of pi's suite as the adapter reported it.
type Case struct {
	Group string `json:"group"`
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Summary is the adapter's last line.
type Summary struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// RunStorageConformance runs pi's createStorageConformance, unmodified,
// against the server command (a fresh process per case; "{dir}" in it is a
// fresh directory per case). peerDir is the installed pi-agent-core peer.
// A failing case is a Case with OK false, not an error; the error is for a
// run that did not report every case.
func RunStorageConformance(ctx context.Context, node, peerDir string, server []string, env []string) ([]Case, Summary, error) {
	return runSuite(ctx, node, peerDir, Adapter, "conform-storage", server, env)
}

// RepoAdapter is the session-repository adapter script inside the
// pi-agent-core peer directory.
const RepoAdapter = "session-repo-adapter.mjs"

// RunSessionRepoConformance runs pi's createSessionRepoConformance,
// unmodified, against the server command, a `frameproof serve repo` (a
// fresh process and directory per case, as RunStorageConformance).
func RunSessionRepoConformance(ctx context.Context, node, peerDir string, server []string, env []string) ([]Case, Summary, error) {
	return runSuite(ctx, node, peerDir, RepoAdapter, "conform-repo", server, env)
}

// runSuite runs one adapter's suite and reads its case lines.
func runSuite(ctx context.Context, node, peerDir, script, mode string, server []string, env []string) ([]Case, Summary, error) {
	args := append([]string{filepath.Join(peerDir, script), mode, "--"}, server...)
	cmd := procgroup.CommandContext(ctx, node, args...)
	cmd.Dir = peerDir
	cmd.Env = env
	stderr := procgroup.NewTail(4000)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, Summary{}, fmt.Errorf("pistorage: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, Summary{}, fmt.Errorf("pistorage: start node: %w", err)
	}
	var cases []Case
	var summary *Summary
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var parseErr error
	for sc.Scan() {
		line := sc.Bytes()
		var head struct {
			Summary *Summary `json:"summary"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			parseErr = fmt.Errorf("pistorage: adapter printed %q", line)
			continue
		}
		if head.Summary != nil {
			summary = head.Summary
			continue
		}
		var c Case
		if err := json.Unmarshal(line, &c); err != nil {
			parseErr = fmt.Errorf("pistorage: adapter printed %q", line)
			continue
		}
		cases = append(cases, c)
	}
	werr := cmd.Wait()
	switch {
	case parseErr != nil:
		return cases, Summary{}, parseErr
	case summary == nil:
		return cases, Summary{}, fmt.Errorf("pistorage: the adapter ended without a summary (%v): %s", werr, strings.TrimSpace(stderr.String()))
	case summary.Passed+summary.Failed != len(cases):
		return cases, *summary, fmt.Errorf("pistorage: summary %+v does not count the %d cases reported", *summary, len(cases))
	}
	return cases, *summary, nil
}
