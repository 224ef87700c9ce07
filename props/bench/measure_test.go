package bench

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Batches double while cheap, stop at what batchSpan holds at the rate so
// far, and never fall below one op (a slow op is timed one by one).
func TestNextBatch(t *testing.T) {
	require.Equal(t, 2, nextBatch(1, 1, 100*time.Nanosecond))
	require.Equal(t, 1024, nextBatch(512, 1023, 1023*100*time.Nanosecond))
	require.Equal(t, int(batchSpan/(100*time.Nanosecond)), nextBatch(1<<20, 1<<21, (1<<21)*100*time.Nanosecond))
	require.Equal(t, 1, nextBatch(4, 5, 5*time.Second))
}

// Measure counts every op it ran (the untimed warm-up aside), runs at
// least one, and stops on an op's error.
func TestMeasureCountsEveryOp(t *testing.T) {
	calls := 0
	s, err := Measure(2*time.Millisecond, func() error { calls++; return nil })
	require.NoError(t, err)
	require.Equal(t, calls-1, s.Ops)
	require.Greater(t, s.Ops, 1)

	boom := errors.New("boom")
	calls = 0
	_, err = Measure(time.Hour, func() error {
		if calls++; calls == 40 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
}
