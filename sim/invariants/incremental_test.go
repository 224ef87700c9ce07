package invariants

import (
	"fmt"
	"testing"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/stretchr/testify/require"
)

// prefixOf is v with only the first n items of its log.
func prefixOf(v *View, n int) *View {
	p := *v
	p.Log = v.Log[:n]
	return &p
}

// A LogScan fed a log that grows item by item reports what a full Check
// reports at every length, on the baseline and on every broken view of
// TestEachInvariantRejectsABrokenView (each break of the log lands at some
// length; those of the view are there from the first).
func TestLogScanAgreesWithCheckAsTheLogGrows(t *testing.T) {
	views := map[string]*View{"baseline": baseline(t)}
	for n, br := range brokenViews() {
		v := baseline(t)
		br(v)
		views[fmt.Sprintf("break of invariant %d", n)] = v
	}
	// the log halves of invariants 5 and 11, which the breaks above do not
	// reach
	rec := func(op, resp string, i int, o lane.FrameOutcome, seq int64) LogItem {
		return LogItem{Frame: &lane.FrameRecord{OperationID: op, ResponseEntryID: resp, EventIndex: i, EventType: pi.EventTextDelta, Outcome: o, Seq: seq}}
	}
	for name, it := range map[string]LogItem{
		"enqueued out of order":  rec("B", "R2", 1, lane.FrameEnqueued, 0),
		"committed out of order": rec("B", "R2", 1, lane.FrameCommitted, 12),
		"committed seq repeated": rec("B", "R2", 2, lane.FrameCommitted, 11),
		"structural frames":      rec("S", "s1", 0, lane.FrameEnqueued, 0),
	} {
		v := baseline(t)
		// the offending record amid others, so that the scan reaches it
		// with state carried from earlier calls
		v.Log = append(v.Log, rec("B", "R2", 2, lane.FrameEnqueued, 0), it, rec("B", "R2", 3, lane.FrameEnqueued, 0))
		views[name] = v
	}
	for name, v := range views {
		var s LogScan
		for n := 0; n <= len(v.Log); n++ {
			want := Check(prefixOf(v, n))
			got := s.Check(prefixOf(v, n))
			if want == nil {
				require.NoError(t, got, "%s, %d items", name, n)
				continue
			}
			require.Error(t, got, "%s, %d items: full scan says %v", name, n, want)
			require.Equal(t, want.Error(), got.Error(), "%s, %d items", name, n)
		}
	}
}

// A log that does not extend the scanned one (shorter, or another item
// where the last scanned one was) is scanned again from the start.
func TestLogScanRescansALogThatDoesNotExtendTheScannedOne(t *testing.T) {
	v := baseline(t)
	var s LogScan
	require.NoError(t, s.Check(v))
	// the same items, the last replaced: a terminal frame (invariant 4)
	bad := *v
	bad.Log = append([]LogItem(nil), v.Log...)
	last := *bad.Log[len(bad.Log)-1].Frame
	last.EventType = pi.EventDone
	bad.Log[len(bad.Log)-1] = LogItem{Frame: &last}
	require.ErrorContains(t, s.Check(&bad), "invariant 4")
	// a shorter log after a longer one
	require.NoError(t, s.Check(v))
	require.NoError(t, s.Check(prefixOf(v, 2)))
	require.NoError(t, s.Check(v))
	// verification agrees on both
	s.VerifyFull = true
	require.NoError(t, s.Check(v))
	require.ErrorContains(t, s.Check(&bad), "invariant 4")
}

// VerifyFull reports a scan whose carried state a full scan would not
// reach: here the scan forgets that it scanned the first item while its
// state keeps what that item left, so it reads the item twice (a frame
// "enqueued after" itself) where a full scan passes, and the disagreement
// is the error.
func TestLogScanVerifyFullReportsACorruptedCarry(t *testing.T) {
	v := baseline(t)
	for _, broken := range []bool{false, true} {
		s := LogScan{VerifyFull: true}
		require.NoError(t, s.Check(prefixOf(v, 1)))
		if broken {
			s.n--
		}
		err := s.Check(v)
		if broken {
			require.ErrorContains(t, err, "disagrees with a full scan")
		} else {
			require.NoError(t, err)
		}
	}
}
