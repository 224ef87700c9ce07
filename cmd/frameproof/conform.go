package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/frameproof/frameproof/props/corpus"
	"github.com/frameproof/frameproof/props/peer"
	"github.com/frameproof/frameproof/props/peer/procgroup"
)

// conform certifies an implementation of pi-ai's frame codec against the
// codec vectors: an external process over the frameproof stdio protocol v1
// (--exec), or frameproof's own Go codec in-process (--self).

func init() {
	register("conform", "certify a frame codec implementation against the corpus vectors (--exec CMD | --self), or a store (--suite store --exec CMD)", runConform)
}

const conformUsage = "usage: frameproof conform [--suite codec] (--exec CMD | --self) [--ops encode,reduce,parse] [--json] [--junit FILE] [--corpus DIR] [--timeout D] [-q]"

func runConform(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	switch suite := suiteOf(args); suite {
	case "store":
		return runConformStore(args, stdout, stderr)
	case "", "codec":
	default:
		return usageError(stderr, "conform", "--suite %q: want codec or store", suite)
	}
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.String("suite", "codec", "codec (this one: the frame codec vectors) or store (frameproof conform --suite store --help)")
	execCmd := fs.String("exec", "", "command speaking the frameproof stdio protocol v1 (split like shell words)")
	self := fs.Bool("self", false, "certify frameproof's own Go codec (impl/frames), in-process")
	opsFlag := fs.String("ops", strings.Join(corpus.CodecOps, ","), "comma-separated ops to run: encode, reduce, parse")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write JUnit XML to this file")
	corpusDir := fs.String("corpus", "", "corpus root or codec vector directory (default: corpus/ of this module)")
	timeout := fs.Duration("timeout", 10*time.Minute, "kill the implementation (its whole process group) and stop after this long, startup included")
	quiet := fs.Bool("q", false, "print only failing vectors and the certificate")
	if code := parseFlags(fs, args, conformUsage, nil, stdout, stderr); code >= 0 {
		return code
	}
	if code := noArgs(fs, stderr); code >= 0 {
		return code
	}
	if (*execCmd == "") == !*self {
		return usageError(stderr, "conform", "need exactly one of --exec CMD or --self")
	}
	if *timeout <= 0 {
		return usageError(stderr, "conform", "--timeout %s: must be positive", *timeout)
	}
	ops, err := parseOps(*opsFlag)
	if err != nil {
		return usageError(stderr, "conform", "%v", err)
	}
	var argv []string
	if *execCmd != "" {
		if argv, err = commandWords("--exec", *execCmd); err != nil {
			return usageError(stderr, "conform", "%v", err)
		}
	}
	dir, code := codecDir(*corpusDir, stderr)
	if code >= 0 {
		return code
	}
	if err := checkOutputFile("--junit", *junit); err != nil {
		return ioError(stderr, "conform", "%v", err)
	}
	vectors, err := corpus.LoadCodec(dir)
	if err != nil {
		return ioError(stderr, "conform", "%v", trimPrefix(err, "corpus"))
	}
	vectors = corpus.FilterOps(vectors, ops)
	corpusVersion, err := corpus.CodecVersion(dir)
	if err != nil {
		return ioError(stderr, "conform", "%v", trimPrefix(err, "corpus"))
	}

	// SIGINT or SIGTERM kills the implementation's process group (where a
	// terminal's Ctrl-C does not reach it), ends the run and reports it
	// interrupted.
	ctx, stopSignals := interruptContext()
	defer stopSignals()
	rep := &Report{Schema: ReportSchema, Command: "conform", CorpusVersion: corpusVersion}
	var subject corpus.Codec = corpus.GoCodec{}
	rep.Implementation = &ReportImplementation{Name: "frameproof", Version: version + " (impl/frames, in-process)"}
	if *execCmd != "" {
		p, stop, err := startExec(ctx, argv, *timeout)
		if err != nil {
			rep.Implementation = &ReportImplementation{Name: "(unavailable)", Command: *execCmd}
			interrupted := ctx.Err() != nil
			if !interrupted {
				rep.Note = err.Error()
				fmt.Fprintln(stderr, "frameproof conform:", err)
			}
			code := finishConform(rep, interrupted, *asJSON, *junit, stdout, stderr)
			if interrupted {
				return code
			}
			// Not started, no hello or a garbage one: the certificate says
			// why there is no verdict; the exit code says the environment,
			// not the subject, failed (as provider fuzz says it).
			return outputCode(code, err)
		}
		defer func() { _ = stop() }()
		h := p.Hello()
		rep.Implementation = &ReportImplementation{Name: h.Implementation, Version: h.ImplementationVersion,
			Protocol: fmt.Sprintf("%s/%d", h.Protocol, h.Version), Command: *execCmd}
		subject = p
	}

	aborted := checkVectors(ctx, rep, subject, vectors, !*asJSON, *quiet, stdout, stderr)
	if closer, ok := subject.(interface{ Close() error }); ok && aborted == "" && ctx.Err() == nil {
		// The protocol requires a clean exit (status 0) when stdin closes.
		if err := closer.Close(); err != nil {
			rep.Note = "protocol violation at end of input: " + err.Error()
		}
	}
	return finishConform(rep, ctx.Err() != nil, *asJSON, *junit, stdout, stderr)
}

// checkVectors runs every vector through the subject into rep, printing
// each case as text when asked, and returns why the rest were skipped ("":
// none was): after a transport failure the stream may be out of step.
func checkVectors(ctx context.Context, rep *Report, subject corpus.Codec, vectors []corpus.CodecVector, text, quiet bool, stdout, stderr io.Writer) (aborted string) {
	tty := isTTY(stderr)
	for i, v := range vectors {
		if tty && i%25 == 0 {
			fmt.Fprintf(stderr, "\rconform: %d/%d vectors", i, len(vectors))
		}
		c := ReportCase{Name: v.Name}
		if aborted == "" && ctx.Err() != nil {
			aborted = "interrupted"
		}
		if aborted != "" {
			c.Status, c.Detail = statusSkipped, "not run: "+aborted
			rep.add(v.Op, c)
			continue
		}
		verdict, err := corpus.CheckCodec(subject, v)
		var perr *peer.ProtocolError
		switch {
		case errors.As(err, &perr):
			// The implementation rejected the request; the stream stays in step.
			c.Status, c.Detail = statusError, "protocol violation: "+err.Error()
		case err != nil && ctx.Err() != nil:
			// The interrupt killed the implementation mid-request.
			c.Status, c.Detail = statusSkipped, "not run: interrupted"
			aborted = "interrupted"
		case err != nil:
			// Transport or framing failure: the stream may be out of step.
			c.Status, c.Detail = statusError, err.Error()
			aborted = "the implementation failed at " + v.Name
		case verdict.Pass:
			c.Status = statusPass
		default:
			c.Status, c.Detail = statusFail, verdict.Diff
		}
		rep.add(v.Op, c)
		if text && (!quiet || c.Status != statusPass) {
			printCase(stdout, c)
		}
	}
	if tty {
		fmt.Fprintf(stderr, "\r%-40s\r", "")
	}
	return aborted
}

func finishConform(rep *Report, interrupted, asJSON bool, junit string, stdout, stderr io.Writer) int {
	rep.finish()
	if interrupted {
		markInterrupted(rep)
		fmt.Fprintln(stderr, "frameproof conform: interrupted: the implementation's process group was killed")
	}
	code := rep.writeJUnitKeeping(junit, "frameproof conform", rep.ExitCode, stderr)
	if asJSON {
		_ = rep.writeJSON(stdout) // dispatch's checked stdout reports a failed write
		return code
	}
	printCertificate(stdout, rep)
	return code
}

// parseOps checks the --ops list. Replay projection is not an op of the
// stdio protocol v1, so project vectors cannot be run against a peer.
func parseOps(s string) ([]string, error) {
	var ops []string
	for _, o := range strings.Split(s, ",") {
		o = strings.TrimSpace(o)
		switch o {
		case corpus.OpEncode, corpus.OpReduce, corpus.OpParse:
			ops = append(ops, o)
		case "project":
			return nil, errors.New("--ops: project is not an op of the frameproof stdio protocol v1 (replay vectors run in-process: frameproof corpus run)")
		case "":
		default:
			return nil, fmt.Errorf("--ops: unknown op %q (want encode, reduce, parse)", o)
		}
	}
	if len(ops) == 0 {
		return nil, errors.New("--ops: no ops given")
	}
	return ops, nil
}

// codecDir resolves --corpus: a corpus root (holding vectors/codec), a
// directory of codec vectors, or "" for this module's corpus. It returns
// the directory or the exit code to stop with.
func codecDir(flagValue string, stderr io.Writer) (string, int) {
	if flagValue != "" {
		if info, err := os.Stat(corpus.CodecDir(flagValue)); err == nil && info.IsDir() {
			flagValue = corpus.CodecDir(flagValue)
		}
	}
	dir, code := corpusRoot(flagValue, "conform", stderr)
	if code >= 0 || flagValue != "" {
		return filepath.Clean(dir), code
	}
	return checkCorpusDir(corpus.CodecDir(dir), false, "conform", stderr)
}

// startExec starts the implementation in its own process group and arms
// the timeout, which covers the hello wait and every request after it: when
// it fires the whole group is killed, so a hung request (or a wrapper whose
// child holds the pipe) fails instead of blocking forever.
func startExec(ctx context.Context, argv []string, timeout time.Duration) (*peer.Peer, func() error, error) {
	began := time.Now()
	// ctx done (an interrupt) kills the group too, the hello wait included.
	p, err := peer.StartCommandWithin(procgroup.CommandContext(ctx, argv[0], argv[1:]...), timeout)
	if err != nil {
		return nil, nil, err
	}
	timer := time.AfterFunc(max(0, timeout-time.Since(began)), p.Kill)
	return p, func() error {
		timer.Stop()
		return p.Close() // idempotent
	}, nil
}

// splitWords splits a command line like a POSIX shell word list: blanks
// separate words; single quotes keep everything literal; double quotes keep
// blanks and allow \" \\ \$ \`; a backslash outside quotes escapes the next
// character. No expansion of any kind happens.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated single quote in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated double quote in %q", s)
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("trailing backslash in %q", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func printCase(w io.Writer, c ReportCase) {
	tag := map[string]string{statusPass: "ok  ", statusFail: "FAIL", statusError: "ERR ", statusSkipped: "SKIP"}[c.Status]
	fmt.Fprintf(w, "%s %s\n", tag, c.Name)
	if c.Detail != "" {
		for _, line := range strings.Split(c.Detail, "\n") {
			fmt.Fprintf(w, "       %s\n", line)
		}
	}
}

// printCertificate prints the summary block that closes every conform run.
func printCertificate(w io.Writer, r *Report) {
	fmt.Fprintln(w, "certificate")
	if im := r.Implementation; im != nil {
		fmt.Fprintf(w, "  implementation  %s\n", strings.TrimSpace(im.Name+" "+im.Version))
		if im.Protocol != "" {
			fmt.Fprintf(w, "  protocol        %s\n", im.Protocol)
		}
		if im.Command != "" {
			fmt.Fprintf(w, "  command         %s\n", im.Command)
		}
	}
	fmt.Fprintf(w, "  corpus          %s\n", r.CorpusVersion)
	var per []string
	for _, s := range r.Suites {
		per = append(per, fmt.Sprintf("%s %d/%d", s.Name, s.Passed, s.Tests))
	}
	fmt.Fprintf(w, "  vectors         %d (%s)\n", r.Tests, strings.Join(per, ", "))
	fmt.Fprintf(w, "  passed          %d\n", r.Passed)
	fmt.Fprintf(w, "  failed          %d\n", r.Failed)
	if r.Errors > 0 || r.Skipped > 0 {
		fmt.Fprintf(w, "  errors          %d\n", r.Errors)
		fmt.Fprintf(w, "  not run         %d\n", r.Skipped)
	}
	if r.Note != "" {
		fmt.Fprintf(w, "  note            %s\n", r.Note)
	}
	fmt.Fprintf(w, "  verdict         %s\n", strings.ToUpper(r.Verdict))
}
