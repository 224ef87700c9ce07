package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/frameproof/frameproof/props/storeconform"
)

// conform --suite store certifies a store: frameproof's store suite
// (props/storeconform) against a process that serves one over the
// frameproof-store protocol (impl/store/serve).

const conformStoreUsage = "usage: frameproof conform --suite store --exec CMD [--seed N] [--checks N] [--steps N] [--kill-commits N] [--case NAME]... [--json] [--junit FILE] [--timeout D] [-q]"

// suiteOf returns the --suite value in args ("" when absent).
func suiteOf(args []string) string {
	for i, a := range args {
		switch {
		case a == "--":
			return ""
		case a == "--suite" || a == "-suite":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--suite="), strings.HasPrefix(a, "-suite="):
			return a[strings.IndexByte(a, '=')+1:]
		}
	}
	return ""
}

func runConformStore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.String("suite", "store", "the suite: codec (the frame codec vectors) or store (this one)")
	execCmd := fs.String("exec", "", "command serving a store over the frameproof-store protocol (split like shell words; {dir} in it is a fresh directory per case)")
	seed := fs.Uint64("seed", 1, "seed of the state machine and the kill workloads")
	checks := fs.Int("checks", 20, "state machine runs per state machine case (each starts a fresh server)")
	steps := fs.Int("steps", 30, "mean actions per state machine run")
	killCommits := fs.Int("kill-commits", 12, "commits per kill case (the server is killed once per commit)")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file")
	timeout := fs.Duration("timeout", 30*time.Minute, "stop after this long (the server's process group is killed)")
	quiet := fs.Bool("q", false, "print only failing cases and the certificate")
	var only caseList
	fs.Var(&only, "case", "run only this case (repeatable; the names are listed below)")
	help := func(w io.Writer) {
		fmt.Fprintln(w, "Runs frameproof's store suite against a store served over stdio (the protocol of")
		fmt.Fprintln(w, "`frameproof serve store`, package impl/store/serve). A server whose hello says")
		fmt.Fprintln(w, "\"durable\": true is also SIGKILLed and restarted on the same directory. Cases:")
		for _, c := range storeconform.Cases() {
			tag := ""
			if c.Durable {
				tag = " (durable servers)"
			}
			fmt.Fprintf(w, "  %s%s: %s\n", c.Name, tag, c.About)
		}
		fmt.Fprintln(w, "pi's own stores: --exec \"node corpus/peers/pi-agent-core/store-driver.mjs --store jsonl --dir {dir}\"")
		fmt.Fprintln(w, "(or --store memory); frameproof's: --exec \"frameproof serve store --backend jsonl --dir {dir}\".")
	}
	if code := parseFlags(fs, args, conformStoreUsage, help, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	if *execCmd == "" {
		return usageError(stderr, "conform", "--suite store needs --exec CMD")
	}
	for name, v := range map[string]int{"--checks": *checks, "--steps": *steps, "--kill-commits": *killCommits} {
		if v < 1 {
			return usageError(stderr, "conform", "%s must be at least 1", name)
		}
	}
	if *timeout <= 0 {
		return usageError(stderr, "conform", "--timeout %s: must be positive", *timeout)
	}
	for _, c := range only {
		if !slices.ContainsFunc(storeconform.Cases(), func(k storeconform.Case) bool { return k.Name == c }) {
			return usageError(stderr, "conform", "--case %q: no such case (frameproof conform --suite store --help lists them)", c)
		}
	}
	argv, err := commandWords("--exec", *execCmd)
	if err != nil {
		return usageError(stderr, "conform", "%v", err)
	}
	if err := checkOutputFile("--junit", *junit); err != nil {
		return ioError(stderr, "conform", "%v", err)
	}
	ctx, stopSignals := interruptContext()
	defer stopSignals()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	opts := storeconform.Options{Seed: *seed, Checks: *checks, Steps: *steps, KillCommits: *killCommits, Only: only}
	rep := &Report{Schema: ReportSchema, Command: "conform --suite store"}
	text := !*asJSON
	hello, verdicts, err := storeconform.Run(ctx, storeconform.Subject{Argv: argv}, opts, func(v storeconform.Verdict) {
		c := ReportCase{Name: v.Name, Status: v.Status, Detail: v.Detail}
		if v.Status == storeconform.Skipped && ctx.Err() == nil {
			// Not applicable (a kill case against a store that is not
			// durable): printed, but no part of the verdict.
			if text && !*quiet {
				fmt.Fprintf(stdout, "n/a  %s\n       %s\n", v.Name, v.Detail)
			}
			return
		}
		rep.add("store", c)
		if text && (!*quiet || c.Status != statusPass) {
			printCase(stdout, c)
		}
	})
	if err != nil {
		rep.Implementation = &ReportImplementation{Name: "(unavailable)", Command: *execCmd}
		interrupted := ctx.Err() != nil
		if !interrupted {
			rep.Note = err.Error()
			fmt.Fprintln(stderr, "frameproof conform:", err)
		}
		code := finishConformStore(rep, interrupted, *asJSON, *junit, stdout, stderr)
		if interrupted {
			return code
		}
		return outputCode(code, err)
	}
	rep.Implementation = &ReportImplementation{Name: hello.Implementation, Version: strings.TrimSpace(hello.ImplementationVersion + " " + hello.Backend),
		Protocol: fmt.Sprintf("%s/%d", hello.Protocol, hello.Version), Command: *execCmd}
	for _, v := range verdicts {
		if v.Status == storeconform.Fail {
			rep.Note = "reproduce: " + storeconform.Repro(*execCmd, opts)
			break
		}
	}
	return finishConformStore(rep, ctx.Err() != nil, *asJSON, *junit, stdout, stderr)
}

func finishConformStore(rep *Report, interrupted, asJSON bool, junit string, stdout, stderr io.Writer) int {
	rep.finish()
	if interrupted {
		markInterrupted(rep)
		fmt.Fprintln(stderr, "frameproof conform: interrupted or out of time: the server's process group was killed")
	}
	code := rep.writeJUnitKeeping(junit, "frameproof conform", rep.ExitCode, stderr)
	if asJSON {
		_ = rep.writeJSON(stdout)
		return code
	}
	fmt.Fprintln(stdout, "certificate")
	if im := rep.Implementation; im != nil {
		fmt.Fprintf(stdout, "  implementation  %s\n", strings.TrimSpace(im.Name+" "+im.Version))
		if im.Protocol != "" {
			fmt.Fprintf(stdout, "  protocol        %s\n", im.Protocol)
		}
		fmt.Fprintf(stdout, "  command         %s\n", im.Command)
	}
	fmt.Fprintf(stdout, "  suite           store (%d cases run)\n", rep.Tests)
	fmt.Fprintf(stdout, "  passed          %d\n", rep.Passed)
	fmt.Fprintf(stdout, "  failed          %d\n", rep.Failed)
	if rep.Errors > 0 || rep.Skipped > 0 {
		fmt.Fprintf(stdout, "  not run         %d\n", rep.Errors+rep.Skipped)
	}
	if rep.Note != "" {
		fmt.Fprintf(stdout, "  note            %s\n", rep.Note)
	}
	fmt.Fprintf(stdout, "  verdict         %s\n", strings.ToUpper(rep.Verdict))
	return code
}

// caseList is the repeatable --case flag.
type caseList []string

func (c *caseList) String() string     { return strings.Join(*c, ", ") }
func (c *caseList) Set(v string) error { *c = append(*c, v); return nil }
