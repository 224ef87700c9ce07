package lane

import "slices"

// bug names one deliberately injectable defect of the lane, for the
// simulator's mutation score. A bug's switch exists only in builds with the
// frameproofbugs tag (bugs_on.go). In every other build bugs.on is a
// constant false (bugs_off.go), the compiler drops every bug branch, and
// Config has no way to turn one on: the code users run is the code the
// simulator certifies. bugs_test.go (tagged) shows a check catching each.
type bug uint8

const (
	// bugSettleWithoutDelete omits deleteList(frames) from settlement and
	// from the terminal cleanup suffix.
	bugSettleWithoutDelete bug = iota
	// bugFenceIgnoresResponse accepts every frame append without checking
	// the leaf or the responseEntryId.
	bugFenceIgnoresResponse
	// bugFenceAtEnqueue evaluates the fence when the append is enqueued
	// instead of at its turn on the line.
	bugFenceAtEnqueue
	// bugSkipDrain runs after_response without awaiting the latest frame
	// write.
	bugSkipDrain
	// bugRecoveryRunsAfterResponse runs the after_response hook on synthetic
	// recovery/cancellation responses.
	bugRecoveryRunsAfterResponse
	// bugSyntheticNonZeroUsage gives synthetic responses a non-zero usage.
	bugSyntheticNonZeroUsage
	// bugRecoveryMintsNewIDs settles a recovered response under fresh ids
	// instead of the reserved ones.
	bugRecoveryMintsNewIDs
	// bugCancelLosesToComplete lets complete-looking reduced content settle
	// as an ordinary response under cancellation.
	bugCancelLosesToComplete
	// bugSnapshotShowsDeadLivePartial keeps the live partial in snapshots
	// after the stream is no longer owned (fault, close, settlement).
	bugSnapshotShowsDeadLivePartial
	// bugFrameAfterTerminal appends a frame for the terminal done/error
	// event.
	bugFrameAfterTerminal
	// bugEmitEntryBeforeCommit emits entry_added before the settlement
	// commit.
	bugEmitEntryBeforeCommit
	// bugReplacementKeepsOldFrames omits the old list delete from a deferred
	// replacement intent.
	bugReplacementKeepsOldFrames
	// bugFramesFirstPageOnly reads a frame list's first page and stops,
	// as if a full page were the last (unseen with pi's page of 1000 and
	// the simulator's short streams, until the swarm draws small pages).
	bugFramesFirstPageOnly
	// bugThinkingEndKeepsStartRedacted writes a thinking_end frame with
	// the redacted its block's thinking_start saw, not the end's.
	bugThinkingEndKeepsStartRedacted
	// bugResumeReopensStaged resumes a parallel batch's outcome_ready
	// calls as if their effect were still pending: the staged outcome is
	// replaced by the interrupted (or replayed) one.
	bugResumeReopensStaged
	numBugs
)

// bugNames is the one registry of the lane's bug names.
var bugNames = [numBugs]string{
	bugSettleWithoutDelete:           "settle-without-delete",
	bugFenceIgnoresResponse:          "fence-ignores-response",
	bugFenceAtEnqueue:                "fence-at-enqueue",
	bugSkipDrain:                     "skip-drain",
	bugRecoveryRunsAfterResponse:     "recovery-runs-after-response",
	bugSyntheticNonZeroUsage:         "synthetic-nonzero-usage",
	bugRecoveryMintsNewIDs:           "recovery-mints-new-ids",
	bugCancelLosesToComplete:         "cancel-loses-to-complete",
	bugSnapshotShowsDeadLivePartial:  "snapshot-shows-dead-live-partial",
	bugFrameAfterTerminal:            "frame-after-terminal",
	bugEmitEntryBeforeCommit:         "emit-entry-before-commit",
	bugReplacementKeepsOldFrames:     "replacement-keeps-old-frames",
	bugFramesFirstPageOnly:           "frames-first-page-only",
	bugThinkingEndKeepsStartRedacted: "thinking-end-keeps-start-redacted",
	bugResumeReopensStaged:           "resume-reopens-staged",
}

// BugNames lists every injectable bug by name, sorted. The names exist in
// every build (help text, campaign reports); the switches only with the
// frameproofbugs tag (WithBugs).
func BugNames() []string {
	out := slices.Clone(bugNames[:])
	slices.Sort(out)
	return out
}
