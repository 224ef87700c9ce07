package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/frameproof/frameproof/sim/campaign"
)

// The sim, repro and shrink commands drive a campaign.Suite, so that the
// commands can be tested against a small fake suite; the real scenario
// package is wired in by one adapter (simsuite_lanesim.go).

// activeSuite is the suite the commands run; tests swap it.
var activeSuite campaign.Suite = defaultSuite()

// lookupScenarios resolves a comma-separated list ("" = all).
func lookupScenarios(s campaign.Suite, list string) ([]campaign.Scenario, error) {
	all := s.Scenarios()
	valid := scenarioNames(s)
	names, err := lookupNames("scenario", list, valid, valid)
	if err != nil {
		return nil, err
	}
	out := make([]campaign.Scenario, len(names))
	for i, name := range names {
		out[i] = all[slices.Index(valid, name)]
	}
	return out, nil
}

// lookupNames checks a comma-separated list against valid names ("" = def).
func lookupNames(what, list string, valid, def []string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return def, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, name := range splitList(list) {
		if seen[name] {
			continue
		}
		seen[name] = true
		if !slices.Contains(valid, name) {
			return nil, fmt.Errorf("unknown %s %q (valid: %s)", what, name, strings.Join(valid, ", "))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s given", what)
	}
	return out, nil
}

func scenarioNames(s campaign.Suite) []string {
	var names []string
	for _, sc := range s.Scenarios() {
		names = append(names, sc.Name)
	}
	return names
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
