package env

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"sync"
	"time"
)

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// Sleep calls time.Sleep.
func (SystemClock) Sleep(d time.Duration) { time.Sleep(d) }

// OSFS is the real file system.
type OSFS struct{}

// ReadFile reads path with os.ReadFile.
func (OSFS) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// ReadFileAtMost reads at most limit+1 bytes of path, into one buffer of
// the file's size when it is a regular file (peak memory is the file, not
// a multiple of it).
func (OSFS) ReadFileAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() {
		size = min(info.Size(), limit)
	}
	// bytes.Buffer.ReadFrom keeps bytes.MinRead free before each read: with
	// that much room past the size, a file that did not grow fills it once.
	buf := bytes.NewBuffer(make([]byte, 0, int(min(size, math.MaxInt-bytes.MinRead))+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, readBound(limit))); err != nil {
		return nil, err
	}
	return CheckAtMost(path, buf.Bytes(), limit)
}

// Create creates or truncates path.
func (OSFS) Create(path string) (File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
}

// OpenAppend opens path for appending, creating it when absent.
func (OSFS) OpenAppend(path string) (File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
}

// Rename calls os.Rename.
func (OSFS) Rename(oldPath, newPath string) error { return os.Rename(oldPath, newPath) }

// Remove calls os.Remove.
func (OSFS) Remove(path string) error { return os.Remove(path) }

// Exists reports whether path exists.
func (OSFS) Exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// MkdirAll calls os.MkdirAll.
func (OSFS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// SyncDir opens dir and fsyncs it.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	syncErr := d.Sync()
	closeErr := d.Close()
	return errors.Join(syncErr, closeErr)
}

// UUIDv7 mints RFC 9562 version-7 UUIDs: 48 bits of Unix milliseconds from
// the clock, then random bits. Within one millisecond the ids stay strictly
// increasing because the random tail is replaced by a counter bump, as
// RFC 9562 §6.2 method 2 allows.
type UUIDv7 struct {
	clock  Clock
	random io.Reader

	mu     sync.Mutex
	lastMs int64
	randA  uint16 // 12 bits
	randB  uint64 // 62 bits
}

// NewUUIDv7 returns a UUIDv7 minter. random defaults to crypto/rand.
func NewUUIDv7(clock Clock, random io.Reader) *UUIDv7 {
	if random == nil {
		random = rand.Reader
	}
	return &UUIDv7{clock: clock, random: random}
}

// NewID returns the next UUIDv7.
func (u *UUIDv7) NewID() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	ms := u.clock.Now().UnixMilli()
	if ms <= u.lastMs {
		// Same (or an earlier) millisecond: treat rand_a (12 bits) and
		// rand_b (62 bits) as one counter and increment it; on overflow move
		// to the next millisecond. Ids therefore never go backwards.
		u.randB = (u.randB + 1) & (1<<62 - 1)
		if u.randB == 0 {
			u.randA = (u.randA + 1) & 0x0fff
			if u.randA == 0 {
				u.lastMs++
			}
		}
	} else {
		var r [10]byte
		if _, err := io.ReadFull(u.random, r[:]); err != nil {
			panic("env: random source failed: " + err.Error())
		}
		u.lastMs = ms
		u.randA = (uint16(r[0])<<8 | uint16(r[1])) & 0x0fff
		// Leave headroom in rand_b so that a burst rarely spills into rand_a.
		u.randB = binary.BigEndian.Uint64(r[2:]) & (1<<61 - 1)
	}
	var b [16]byte
	ts := u.lastMs
	b[0], b[1], b[2] = byte(ts>>40), byte(ts>>32), byte(ts>>24)
	b[3], b[4], b[5] = byte(ts>>16), byte(ts>>8), byte(ts)
	b[6] = 0x70 | byte(u.randA>>8)
	b[7] = byte(u.randA)
	binary.BigEndian.PutUint64(b[8:], u.randB|0x8000000000000000)
	return FormatUUID(b)
}

// FormatUUID renders 16 bytes in the canonical lowercase hyphenated form
// (8-4-4-4-12 hex digits). Deterministic id minters (the simulator's) use it
// so that their ids look exactly like production ones.
func FormatUUID(b [16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:36], b[10:16])
	return string(out[:])
}

// Goroutines is the production executor: real goroutines and channels.
type Goroutines struct{}

// Go starts fn on a goroutine.
func (Goroutines) Go(_ string, fn func()) { go fn() }

// NewFuture returns a channel-backed future.
func (Goroutines) NewFuture(string) Completer { return &chanFuture{done: make(chan struct{})} }

type chanFuture struct {
	once sync.Once
	done chan struct{}
	err  error
}

func (f *chanFuture) Wait() error {
	<-f.done
	return f.err
}

func (f *chanFuture) Done() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}

func (f *chanFuture) Resolve(err error) {
	f.once.Do(func() {
		f.err = err
		close(f.done)
	})
}
