package serve

import (
	"fmt"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/backends"
)

// Open opens the named backend's store in dir (created, with dir, when
// absent; dir is unused by a memory store) for Serve.
func Open(e env.Env, backend, dir string, o backends.Options) (store.QueryStorage, error) {
	b, err := backends.ByName(backend)
	if err != nil {
		return nil, err
	}
	var st store.Storage
	if b.Durable {
		if dir == "" {
			return nil, fmt.Errorf("serve: backend %s needs a directory", b.Name)
		}
		if err := e.FS.MkdirAll(dir); err != nil {
			return nil, fmt.Errorf("serve: %s: %w", dir, err)
		}
		exists, err := e.FS.Exists(b.Path(dir))
		if err != nil {
			return nil, fmt.Errorf("serve: %s: %w", b.Path(dir), err)
		}
		if exists {
			st, err = b.Open(e, dir, o)
		} else {
			st, err = b.Create(e, dir, o)
		}
		if err != nil {
			return nil, err
		}
	} else if st, err = b.Create(e, dir, o); err != nil {
		return nil, err
	}
	q, ok := st.(store.QueryStorage)
	if !ok {
		_ = st.Close()
		return nil, fmt.Errorf("serve: backend %s has no query surface", b.Name)
	}
	return q, nil
}
