package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/props/peer/procgroup"
	"github.com/frameproof/frameproof/sim/campaign"
	"github.com/frameproof/frameproof/sim/choice"
)

// readySuite is the fake suite that creates a file when its first run
// starts, so a test knows the campaign (and its signal handler) is running.
type readySuite struct {
	fakeSuite
	path string
	once sync.Once
}

func (s *readySuite) Scenarios() []campaign.Scenario {
	scs := s.fakeSuite.Scenarios()
	for i := range scs {
		run := scs[i].Run
		scs[i].Run = func(src choice.Source, opts campaign.RunOptions) campaign.Outcome {
			s.once.Do(func() { _ = os.WriteFile(s.path, nil, 0o644) })
			return run(src, opts)
		}
	}
	return scs
}

// SIGINT or SIGTERM during a campaign prints the summary so far with the
// verdict "interrupted" (exit 3: no verdict), writes the reports and
// removes the temporary directory, through a real process and signal.
func TestSimInterruptedBySignal(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			tmp := filepath.Join(dir, "tmp")
			require.NoError(t, os.Mkdir(tmp, 0o755))
			ready := filepath.Join(dir, "ready")
			junit := filepath.Join(dir, "sim.xml")
			cmd := exec.Command(exe, "sim", "--scenario", "coin", "--backend", "memory,jsonl", "--seeds", "100000000",
				"--jobs", "1", "-q", "--junit", junit)
			cmd.Env = append(os.Environ(), "FRAMEPROOF_AS_CLI=fake-suite", "FRAMEPROOF_TEST_READY="+ready, "TMPDIR="+tmp)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			waitForFile(t, ready, done)
			require.NoError(t, cmd.Process.Signal(sig))
			select {
			case <-done:
			case <-time.After(2 * time.Minute): // a hang detector, not a speed bound
				_ = cmd.Process.Kill()
				t.Fatal("sim did not stop after the signal")
			}
			assert.Equal(t, exitInconclusive, cmd.ProcessState.ExitCode(), errb.String())
			assert.Contains(t, out.String(), "verdict: INTERRUPTED")
			// the note may follow another (a missed race order) on the same line
			assert.Contains(t, out.String(), "interrupted: the counts, coverage and failures cover only the runs finished")
			assert.Regexp(t, `coin\s+memory\s+\d+\s+0 .*PASS \(\d+/100000000 seeds, interrupted\)`, out.String())
			assert.Contains(t, out.String(), "NOT RUN", "the jsonl cell never started")
			assert.Contains(t, errb.String(), "finishing the runs in progress")
			x := decodeJUnit(t, junit)
			assert.Equal(t, 2, x.Tests, "the JUnit report is written")
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			assert.Empty(t, left, "the temporary directory is removed")
		})
	}
}

func waitForFile(t *testing.T, path string, exited <-chan error) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("sim exited before its first run: %v", err)
		case <-deadline:
			t.Fatal("sim never started a run")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// SIGINT while mutate's killer runs ends it with exit 3 (no score, not an
// environment failure) and kills the killer's process group.
func TestMutateInterruptedBySignal(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	root := t.TempDir()
	ready := filepath.Join(root, "ready")
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module sleeper\n\ngo 1.22\n"), 0o644))
	// The sleeping test announces its pid (written aside, then renamed, so
	// the file is whole when it appears).
	test := "package sleeper\n\nimport (\n\t\"os\"\n\t\"strconv\"\n\t\"testing\"\n\t\"time\"\n)\n\n" +
		"func TestSleep(t *testing.T) {\n\t_ = os.WriteFile(" + strconv.Quote(ready+".tmp") + ", []byte(strconv.Itoa(os.Getpid())), 0o644)\n" +
		"\t_ = os.Rename(" + strconv.Quote(ready+".tmp") + ", " + strconv.Quote(ready) + ")\n\ttime.Sleep(time.Minute)\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(root, "sleep_test.go"), []byte(test), 0o644))
	cmd := exec.Command(exe, "mutate", "--root", root, "--pkgs", ".", "--killer", "go test -count=1 .")
	cmd.Env = append(os.Environ(), "FRAMEPROOF_AS_CLI=fake-suite")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitForFile(t, ready, done)
	pidText, err := os.ReadFile(ready)
	require.NoError(t, err)
	killer, err := strconv.Atoi(string(pidText))
	require.NoError(t, err)
	defer syscall.Kill(killer, syscall.SIGKILL) // only if the assertion below failed
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang detector, not a speed bound
		_ = cmd.Process.Kill()
		t.Fatal("mutate did not stop after the signal")
	}
	assert.Equal(t, exitInconclusive, cmd.ProcessState.ExitCode(), errb.String())
	assert.Contains(t, errb.String(), "interrupted before the score was known")
	assert.True(t, procgroup.EventuallyDead(killer), "the killer's test process %d outlived mutate", killer)
}

// SIGINT or SIGTERM to a command that runs a child in its own process group
// (conform --exec, provider fuzz --exec) kills that group, reports the run
// "interrupted" and exits 3, through the real binary and real signals
// (issue 29 class 7: before, frameproof died with 130/143 and the child ran
// on). The child is a shell that starts a sleeper in its group, writes both
// pids and waits: silent (no hello) or, for conform, after its hello, so the
// interrupt lands in the hello wait or in a request.
func TestChildCommandsInterruptedBySignal(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	const hello = `{"hello":"frameproof-stdio","version":1,"implementation":"sleeper","implementationVersion":"0"}`
	for _, tc := range []struct {
		name, script string
		args         func(script string) []string
	}{
		{"conform/no hello", "", func(s string) []string { return []string{"conform", "--exec", "sh " + s, "--ops", "parse"} }},
		{"conform/in a request", "echo '" + hello + "'; ", func(s string) []string {
			return []string{"conform", "--exec", "sh " + s, "--ops", "parse"}
		}},
		{"provider fuzz/no hello", "", func(s string) []string {
			return []string{"provider", "fuzz", "--wire", "anthropic-messages", "--exec", "sh " + s, "--seeds", "1", "--save", "0"}
		}},
	} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(tc.name+"/"+sig.String(), func(t *testing.T) {
				dir := t.TempDir()
				pids := filepath.Join(dir, "pids")
				script := filepath.Join(dir, "child.sh")
				body := tc.script + "sleep 600 & echo $$ $! > " + pids + ".tmp; mv " + pids + ".tmp " + pids + "; wait\n"
				require.NoError(t, os.WriteFile(script, []byte(body), 0o644))
				cmd := exec.Command(exe, tc.args(script)...)
				cmd.Env = append(os.Environ(), "FRAMEPROOF_AS_CLI=fake-suite")
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				require.NoError(t, cmd.Start())
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				waitForFile(t, pids, done)
				data, err := os.ReadFile(pids)
				require.NoError(t, err)
				var shell, sleeper int
				_, err = fmt.Sscan(string(data), &shell, &sleeper)
				require.NoError(t, err)
				defer syscall.Kill(-shell, syscall.SIGKILL) // only if the assertions below failed
				if tc.script != "" {
					time.Sleep(100 * time.Millisecond) // let the hello be read; either way the group must die
				}
				require.NoError(t, cmd.Process.Signal(sig))
				select {
				case <-done:
				case <-time.After(time.Minute): // a hang detector, not a speed bound
					_ = cmd.Process.Kill()
					t.Fatal("frameproof did not stop after the signal")
				}
				assert.Equal(t, exitInconclusive, cmd.ProcessState.ExitCode(), out.String())
				assert.Contains(t, out.String(), "interrupted")
				assert.True(t, procgroup.EventuallyDead(sleeper), "the child's sleeper %d outlived frameproof", sleeper)
				assert.True(t, procgroup.EventuallyDead(shell), "the child %d outlived frameproof", shell)
			})
		}
	}
}
