package invariants

import (
	"fmt"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
)

// LogScan is Check for a caller that checks after every step of a run whose
// log only grows: invariants 2, 4, 5, 6, 7 and 11 read the whole log, so
// Check costs a run time quadratic in its length. LogScan keeps what each of
// them derived from the log it has already scanned (the owners of responses,
// the last event index and seq per response, the outstanding frame writes,
// the synthetic settlements, the (op, resp) pairs of frame records) and
// scans only the items appended since.
//
// Check returns what the package's Check returns for the same view,
// including the first violation it reports: each invariant's scan of the
// log reaches the new items with the state a full scan reaches them with
// (the items before passed every invariant: a Check that fails starts the
// next one afresh), and the parts that read the view (lists, entries,
// structural pairs) are read in full at every call, as Check does.
//
// The items scanned must not change: a call whose log does not extend the
// one scanned so far (shorter, or another item where the last scanned one
// was) scans it from the start.
type LogScan struct {
	n    int     // items of the log scanned
	last LogItem // the last of them
	// VerifyFull, when set, makes every Check also run the package's Check
	// and fail unless the two agree (both pass, or both fail on the same
	// invariant): the proof that the scan kept what a full scan derives.
	VerifyFull bool

	owner      map[string]string // 2: response → operation of its first committed frame
	lastEnq    map[string]int    // 5: response → event index of its last enqueued frame
	lastCom    map[string]int    // 5: response → event index of its last committed frame
	lastSeq    map[string]int64  // 5: response → seq of its last committed frame
	pending    map[string]int    // 6: response → frame writes enqueued and not settled
	synthetic  []string          // 7: entry ids of synthetic entry_added events, in log order
	framePairs map[[2]string]bool
}

func (s *LogScan) reset() {
	*s = LogScan{VerifyFull: s.VerifyFull,
		owner: map[string]string{}, lastEnq: map[string]int{}, lastCom: map[string]int{},
		lastSeq: map[string]int64{}, pending: map[string]int{}, framePairs: map[[2]string]bool{}}
}

// extends reports whether log begins with the items scanned so far.
func (s *LogScan) extends(log []LogItem) bool {
	if s.owner == nil || len(log) < s.n {
		return false
	}
	return s.n == 0 || log[s.n-1] == s.last
}

// Check runs every invariant and returns the first violation, as Check.
func (s *LogScan) Check(v *View) error {
	if !s.extends(v.Log) {
		s.reset()
	}
	err := s.check(v, v.Log[s.n:])
	if err != nil {
		s.reset()
	} else if s.n = len(v.Log); s.n > 0 {
		s.last = v.Log[s.n-1]
	}
	if s.VerifyFull {
		if full := Check(v); (full == nil) != (err == nil) || (err != nil && invariantOf(err) != invariantOf(full)) {
			return fmt.Errorf("incremental log scan disagrees with a full scan: %v, full: %v", err, full)
		}
	}
	return err
}

// invariantOf is the "invariant N (name)" head of a Check error.
func invariantOf(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "):"); i >= 0 {
		return msg[:i]
	}
	return msg
}

func (s *LogScan) check(v *View, items []LogItem) error {
	for _, c := range All {
		var err error
		switch c.N {
		case 2:
			err = s.oneAddress(v, items)
		case 4:
			err = noTerminalFramesIn(items)
		case 5:
			err = s.frameOrder(v, items)
		case 6:
			err = s.drainImpliesCommitted(items)
		case 7:
			err = s.framesNeverComplete(v, items)
		case 11:
			err = s.structuralNoList(v, items)
		default:
			err = c.Check(v)
		}
		if err != nil {
			return fmt.Errorf("invariant %d (%s): %w", c.N, c.Name, err)
		}
	}
	return nil
}

// oneAddress is invariant 2 (oneAddress) over the new items, with the
// owners of the items before.
func (s *LogScan) oneAddress(v *View, items []LogItem) error {
	owner := s.owner
	for _, it := range items {
		if f := it.Frame; f != nil && f.Outcome == lane.FrameCommitted {
			prevOp, ok := owner[f.ResponseEntryID]
			if !ok {
				owner[f.ResponseEntryID] = f.OperationID
				continue
			}
			if prevOp == f.OperationID {
				continue
			}
			prev := lane.FramesAddr(prevOp, f.ResponseEntryID).Key
			if key := lane.FramesAddr(f.OperationID, f.ResponseEntryID).Key; prev != key {
				return fmt.Errorf("response %s written to %s and %s", f.ResponseEntryID, prev, key)
			}
		}
	}
	for k := range v.Lists {
		_, resp := splitKey(k)
		if op, ok := owner[resp]; ok {
			if prev := lane.FramesAddr(op, resp).Key; prev != k {
				return fmt.Errorf("response %s has lists %s and %s", resp, prev, k)
			}
		}
	}
	return nil
}

// noTerminalFramesIn is invariant 4 (noTerminalFrames) over the new items:
// the items before held no terminal frame.
func noTerminalFramesIn(items []LogItem) error {
	for _, it := range items {
		if f := it.Frame; f != nil && (f.EventType == pi.EventDone || f.EventType == pi.EventError) {
			return fmt.Errorf("frame for terminal %s event of %s", f.EventType, f.ResponseEntryID)
		}
	}
	return nil
}

// frameOrder is invariant 5 (frameOrder) over the new items, with the last
// indexes and seqs of the items before.
func (s *LogScan) frameOrder(v *View, items []LogItem) error {
	lastEnq, lastCom, lastSeq := s.lastEnq, s.lastCom, s.lastSeq
	for _, it := range items {
		f := it.Frame
		if f == nil {
			continue
		}
		switch f.Outcome {
		case lane.FrameEnqueued:
			if p, ok := lastEnq[f.ResponseEntryID]; ok && f.EventIndex <= p {
				return fmt.Errorf("%s: frame of event %d enqueued after event %d", f.ResponseEntryID, f.EventIndex, p)
			}
			lastEnq[f.ResponseEntryID] = f.EventIndex
		case lane.FrameCommitted:
			if p, ok := lastCom[f.ResponseEntryID]; ok && (f.EventIndex <= p || f.Seq <= lastSeq[f.ResponseEntryID]) {
				return fmt.Errorf("%s: frame of event %d committed out of order", f.ResponseEntryID, f.EventIndex)
			}
			lastCom[f.ResponseEntryID], lastSeq[f.ResponseEntryID] = f.EventIndex, f.Seq
		}
	}
	for k, els := range v.Lists {
		for i := 1; i < len(els); i++ {
			if els[i].Seq <= els[i-1].Seq {
				return fmt.Errorf("list %s: seq %d after %d", k, els[i].Seq, els[i-1].Seq)
			}
		}
	}
	return nil
}

// drainImpliesCommitted is invariant 6 (drainImpliesCommitted) over the new
// items, with the outstanding writes of the items before.
func (s *LogScan) drainImpliesCommitted(items []LogItem) error {
	pending := s.pending
	for _, it := range items {
		if f := it.Frame; f != nil {
			switch f.Outcome {
			case lane.FrameEnqueued:
				pending[f.ResponseEntryID]++
			default:
				pending[f.ResponseEntryID]--
			}
			continue
		}
		if e := it.Event; e.Type == lane.EvMessageEnd && !e.Recovery && pending[e.EntryID] > 0 {
			return fmt.Errorf("message_end of %s with %d frame writes outstanding", e.EntryID, pending[e.EntryID])
		}
	}
	return nil
}

// framesNeverComplete is invariant 7 (framesNeverComplete): it checks
// every synthetic settlement of the log against the view's entries, as a
// full scan does, remembering the earlier ones rather than scanning for them.
func (s *LogScan) framesNeverComplete(v *View, items []LogItem) error {
	for _, it := range items {
		if e := it.Event; e != nil && e.Type == lane.EvEntryAdded && e.Synthetic {
			s.synthetic = append(s.synthetic, e.EntryID)
		}
	}
	for _, id := range s.synthetic {
		m := v.Entries[id]
		if m == nil {
			return fmt.Errorf("recovered entry %s not committed", id)
		}
		if m.StopReason != pi.StopError && m.StopReason != pi.StopAborted {
			return fmt.Errorf("recovered entry %s settled as %s", id, m.StopReason)
		}
	}
	return nil
}

// structuralNoList is invariant 11 (structuralNoList), with the (op, resp)
// pairs of every frame record of the log remembered rather than scanned for.
func (s *LogScan) structuralNoList(v *View, items []LogItem) error {
	for _, it := range items {
		if f := it.Frame; f != nil {
			s.framePairs[[2]string{f.OperationID, f.ResponseEntryID}] = true
		}
	}
	for _, p := range v.Structural {
		if els := v.Lists[lane.FramesAddr(p[0], p[1]).Key]; len(els) > 0 {
			return fmt.Errorf("structural generation %s:%s wrote %d frames", p[0], p[1], len(els))
		}
		if s.framePairs[p] {
			return fmt.Errorf("structural generation %s:%s produced frame records", p[0], p[1])
		}
	}
	return nil
}
