package sessionrepo

import "github.com/frameproof/frameproof/impl/store/fork"

// forkSourcer is a store a fork source is captured from.
type forkSourcer interface {
	CaptureForkSource() (fork.Source, error)
	Close() error
}

// captureClosed is pi's loadClosedForkSourceSnapshot: the fork source of a
// session no one holds open, from a store opened for the purpose and
// closed again (a close error is the capture's when it had none).
func captureClosed(load func() (forkSourcer, error)) (fork.Source, error) {
	st, err := load()
	if err != nil {
		return fork.Source{}, err
	}
	captured, err := st.CaptureForkSource()
	if cerr := st.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return captured, err
}
