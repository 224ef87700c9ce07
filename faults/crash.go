package faults

import (
	"fmt"

	"github.com/frameproof/frameproof/sim/choice"
)

// Crash modes. A crash draws its mode first when Options.Subset is set;
// otherwise every crash is a prefix crash.
const (
	// ModePrefix keeps, per file, an ordered prefix of the unsynced writes;
	// the first dropped write may be torn at any byte.
	ModePrefix = "prefix"
	// ModeSubset keeps, per file, any subset of the block-sized pieces of
	// the writes since the file's last fsync (ALICE's and LazyFS's
	// reordering within an fsync epoch): a dropped piece before a kept one
	// reads back as zeros, because the file size reached the disk.
	ModeSubset = "subset"
)

// DefaultBlockSize is the tearing granularity of subset crashes when
// Options.BlockSize is 0: a disk sector, the largest unit a disk writes
// atomically without help from the file system.
const DefaultBlockSize = 512

// CrashReport says what one crash kept, for traces and test messages.
type CrashReport struct {
	Mode                        string
	JournalKept, JournalPending int
	Files                       []FileCrash
	// Image is a hash of the disk after the crash (every durable name and
	// its content), so a campaign can count distinct crash states.
	Image uint64
}

// FileCrash is the fate of one file's pending data.
type FileCrash struct {
	Path       string
	OpsKept    int
	OpsPending int
	TornBytes  int // prefix mode: bytes kept of the first dropped write (0: none)
	// BlocksKept of BlocksPending pieces survived (subset mode).
	BlocksKept, BlocksPending int
	Tail                      string // "", "zeros" or "garbage"
	TailBytes                 int
	FinalLength               int
}

func (r CrashReport) String() string {
	s := fmt.Sprintf("journal %d/%d", r.JournalKept, r.JournalPending)
	if r.Mode == ModeSubset {
		s = "subset " + s
	}
	for _, fc := range r.Files {
		if r.Mode == ModeSubset {
			s += fmt.Sprintf("; %s ops %d/%d blocks %d/%d", fc.Path, fc.OpsKept, fc.OpsPending, fc.BlocksKept, fc.BlocksPending)
		} else {
			s += fmt.Sprintf("; %s ops %d/%d torn %d", fc.Path, fc.OpsKept, fc.OpsPending, fc.TornBytes)
		}
		if fc.Tail != "" {
			s += fmt.Sprintf(" +%d %s", fc.TailBytes, fc.Tail)
		}
		s += fmt.Sprintf(" len %d", fc.FinalLength)
	}
	return s
}

// Crash simulates power loss: it decides, through the FS's choice.Source, what the
// disk keeps, makes that the new state (durable, nothing pending) and kills
// every open handle. The FS stays usable, like a rebooted machine.
func (f *FS) Crash() CrashReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashLocked(f.choices, "")
}

// CrashWith is Crash with a one-off choice.Source.
func (f *FS) CrashWith(c choice.Source) CrashReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashLocked(c, "")
}

// CrashInMode is CrashWith in a given mode (ModePrefix or ModeSubset)
// instead of one drawn from c, so that an exhaustive sweep can split its
// budget between the modes.
func (f *FS) CrashInMode(c choice.Source, mode string) CrashReport {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.crashLocked(c, mode)
}

// crashLocked crashes in mode, or in a mode drawn from c when mode is "".
func (f *FS) crashLocked(c choice.Source, mode string) CrashReport {
	rep := CrashReport{Mode: mode}
	if mode == "" {
		rep.Mode = ModePrefix
		if f.opts.Subset && c.Intn("crash: mode (0 prefix, 1 subset)", 2) == 1 {
			rep.Mode = ModeSubset
		}
	}
	rep.JournalPending = len(f.journal)
	keep := len(f.journal)
	if f.opts.LoseDirOps && keep > 0 {
		keep = c.Intn("crash: journal ops kept", keep+1)
	}
	rep.JournalKept = keep
	f.applyJournal(keep)
	f.journal = nil

	// Decide the data of every file that survives in the namespace, in path
	// order so that the same choices give the same state.
	seen := map[*inode]bool{}
	for _, p := range sortedKeys(f.durableNames) {
		ino := f.durableNames[p]
		if seen[ino] {
			continue
		}
		seen[ino] = true
		switch {
		case len(ino.pending) == 0:
		case rep.Mode == ModeSubset:
			rep.Files = append(rep.Files, f.crashFileSubset(c, p, ino))
		default:
			rep.Files = append(rep.Files, f.crashFile(c, p, ino))
		}
	}
	// The page cache is gone: reads now see the disk.
	f.names = map[string]*inode{}
	for p, ino := range f.durableNames {
		ino.pending = nil
		ino.visible = append([]byte(nil), ino.durable...)
		f.names[p] = ino
	}
	rep.Image = f.imageLocked()
	f.gen++
	f.crashes++
	f.dead = false
	f.crashAfter = 0
	return rep
}

func (f *FS) crashFile(c choice.Source, path string, ino *inode) FileCrash {
	fc := FileCrash{Path: path, OpsPending: len(ino.pending)}
	n := len(ino.pending)
	k := c.Intn("crash: ops kept of "+path, n+1)
	fc.OpsKept = k
	content := applyOps(ino.durable, ino.pending[:k])
	if k < n && !ino.pending[k].trunc && len(ino.pending[k].data) > 0 {
		op := ino.pending[k]
		size := len(op.data)
		torn := 0
		if f.opts.Tear {
			torn = c.Intn("crash: torn bytes kept of "+path, size)
		}
		if torn > 0 {
			content = applyOp(content, pendingOp{data: op.data[:torn], lost: op.lost})
		}
		fc.TornBytes = torn
		content, fc.Tail, fc.TailBytes = f.junkTail(c, path, content, size-torn)
	}
	ino.durable = content
	fc.FinalLength = len(content)
	return fc
}

// junkTail optionally extends content by up to room bytes of zeros or
// garbage: the file's size reached disk but its data did not.
func (f *FS) junkTail(c choice.Source, path string, content []byte, room int) ([]byte, string, int) {
	kinds := []string{""}
	if f.opts.ZeroTail {
		kinds = append(kinds, "zeros")
	}
	if f.opts.GarbageTail {
		kinds = append(kinds, "garbage")
	}
	if room <= 0 || len(kinds) == 1 {
		return content, "", 0
	}
	kind := kinds[c.Intn("crash: tail kind of "+path, len(kinds))]
	if kind == "" {
		return content, "", 0
	}
	n := 1 + c.Intn("crash: tail bytes of "+path, room)
	if kind == "zeros" {
		return append(content, make([]byte, n)...), kind, n
	}
	// A handful of garbage patterns keeps exhaustive enumeration small.
	seed := uint32(0x2545F491*(1+c.Intn("crash: garbage pattern of "+path, 4))) | 1
	return append(content, garbage(seed, n, f.opts.GarbageNewlines)...), kind, n
}

// garbage returns n pseudo-random bytes from a xorshift generator; '\n' is
// replaced unless newlines are allowed.
func garbage(seed uint32, n int, newlines bool) []byte {
	out := make([]byte, n)
	x := seed
	for i := range out {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b := byte(x)
		if b == '\n' && !newlines {
			b = '#'
		}
		out[i] = b
	}
	return out
}
