package corpus

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxCorpusFile bounds one corpus file (a vector list, a golden session, a
// sidecar). The largest shipped file is under 1 MiB; a corpus directory is
// user input, and a FIFO or a device there must not hang or exhaust a run.
const maxCorpusFile = 64 << 20

// readCorpusFile reads path whole after checking it is a regular file no
// larger than maxCorpusFile; every error names the path.
func readCorpusFile(path string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer before the mode could be checked. Regular files ignore it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("corpus: %s: not a regular file (%s)", path, info.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxCorpusFile+1))
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", path, err)
	}
	if len(data) > maxCorpusFile {
		return nil, fmt.Errorf("corpus: %s: larger than %d bytes", path, maxCorpusFile)
	}
	return data, nil
}
