package envtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/frameproof/frameproof/impl/env"
)

var (
	_ env.Clock = (*Clock)(nil)
	_ env.IDs   = (*IDs)(nil)
)

func TestManualClockMovesOnlyOnSleep(t *testing.T) {
	c := NewClock(Epoch)
	assert.Equal(t, Epoch, c.Now().UnixMilli())
	assert.Equal(t, Epoch, c.Now().UnixMilli())
	c.Sleep(1500 * time.Millisecond)
	assert.Equal(t, float64(Epoch+1500), c.NowMs())
}

func TestTickClockMovesOnEveryReading(t *testing.T) {
	c := NewTickClock(0)
	assert.Equal(t, int64(1), c.Now().UnixMilli())
	assert.Equal(t, int64(2), c.Now().UnixMilli())
	c.Sleep(time.Second)
	assert.Equal(t, int64(1003), c.Now().UnixMilli())
}

func TestIDsAreSequentialAndSorted(t *testing.T) {
	var g IDs
	a, b := g.NewID(), g.NewID()
	assert.Equal(t, "0190a000-0000-7000-8000-000000000001", a)
	assert.Equal(t, "0190a000-0000-7000-8000-000000000002", b)
	assert.Less(t, a, b)
	assert.Equal(t, "0190a000-0000-7000-8000-000000000101", IDsAfter(100).NewID())
}

// ExampleClock shows a lane test's clock: it stands still until a retry
// backoff sleeps.
func ExampleClock() {
	c := NewClock(Epoch)
	before := c.Now()
	c.Sleep(250 * time.Millisecond)
	fmt.Println(c.Now().Sub(before))
	// Output: 250ms
}
