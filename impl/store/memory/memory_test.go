package memory_test

import (
	"testing"

	"github.com/frameproof/frameproof/impl/env"
	"github.com/frameproof/frameproof/impl/store"
	"github.com/frameproof/frameproof/impl/store/memory"
	"github.com/frameproof/frameproof/impl/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) store.Storage { return memory.New(env.SystemClock{}) })
}
