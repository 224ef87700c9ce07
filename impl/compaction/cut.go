package compaction

// role is a message entry's message role ("" for other entries).
func (e Entry) role() string {
	if e.Type != "message" {
		return ""
	}
	r, _ := str(e.Message, "role")
	return r
}

// validCutPoints is findValidCutPoints: message entries of every role but
// toolResult, and branch summaries, may start the retained tail.
func validCutPoints(entries []Entry, start, end int) []int {
	var cuts []int
	for i := start; i < end; i++ {
		switch entries[i].Type {
		case "message":
			switch entries[i].role() {
			case "bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant":
				cuts = append(cuts, i)
			}
		case "branch_summary":
			cuts = append(cuts, i)
		}
	}
	return cuts
}

// turnStartIndex is findTurnStartIndex: the nearest entry at or before
// index that starts a turn (a branch summary, a user or bashExecution
// message), or -1.
func turnStartIndex(entries []Entry, index, start int) int {
	for i := index; i >= start; i-- {
		e := entries[i]
		if e.Type == "branch_summary" {
			return i
		}
		if r := e.role(); r == "user" || r == "bashExecution" {
			return i
		}
	}
	return -1
}

// CutPoint is findCutPoint's CutPointResult.
type CutPoint struct {
	FirstKeptEntryIndex int
	TurnStartIndex      int
	IsSplitTurn         bool
}

// FindCutPoint is compaction.ts findCutPoint: walking back from the end,
// the first valid cut point at or after the message where the estimated
// recent tokens reach keepRecentTokens (the first cut point when they never
// do), moved back over non-message entries, and whether it splits a turn.
// keepRecentTokens is compared as a JS number (NaN never reaches).
func FindCutPoint(entries []Entry, start, end int, keepRecentTokens float64) CutPoint {
	cuts := validCutPoints(entries, start, end)
	if len(cuts) == 0 {
		return CutPoint{FirstKeptEntryIndex: start, TurnStartIndex: -1}
	}
	cut, accumulated := cuts[0], 0.0
	for i := end - 1; i >= start; i-- {
		if entries[i].Type != "message" {
			continue
		}
		accumulated += float64(EstimateTokens(entries[i].Message))
		if accumulated >= keepRecentTokens {
			for _, c := range cuts {
				if c >= i {
					cut = c
					break
				}
			}
			break
		}
	}
	for cut > start {
		prev := entries[cut-1].Type
		if prev == "compaction" || prev == "message" {
			break
		}
		cut--
	}
	if entries[cut].role() == "user" {
		return CutPoint{FirstKeptEntryIndex: cut, TurnStartIndex: -1}
	}
	ts := turnStartIndex(entries, cut, start)
	return CutPoint{FirstKeptEntryIndex: cut, TurnStartIndex: ts, IsSplitTurn: ts != -1}
}
