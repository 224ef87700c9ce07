// Package lane is the reference model of one lane's assistant-response
// lifecycle at the level of the seed (assistant-durability.md) and pi's code
// (pi-durability-facts.md §4–6): what storage must hold and which events
// must have been emitted after every observable step. It is a plain state
// machine, not a port of impl/lane: it keeps the committed state as maps and
// slices and states each rule where it applies.
//
// # Inputs
//
// A driver feeds the model the same observable decisions the implementation
// experiences, in the order they happen on the lane's FIFO line:
//
//	StartRun(op, userEntry, run)         a run's user entry + op at starting committed
//	Step(permit) → Expect                what the next drive step must do ("start" and
//	                                     "checkpoint" first: checkpoint.go)
//	Checkpoint(stepID)                   the checkpoint TX minted the assistant step
//	Intent(op, resp, usage, attempt)     the intent TX (ids minted by the implementation)
//	ProviderEvent(ev)                    one provider event consumed by the provider loop
//	FrameEnqueued(resp, i, type, frame)  the frame the codec produced for event i
//	FrameCommitted / FrameDeclined       the line's outcome for the oldest queued frame
//	AfterResponse()                      the after_response hook ran (message_end is due)
//	Settle()                             the response settlement committed (entry_added)
//	StepDone(ok)                         the drive step returned (commits single-TX steps)
//	ObserveDrive() / ObservedDone()      a second drive call during a step observes it (pi's
//	                                     Lane.activeDrive): no effect, the step's outcome
//	ToolIntent / ToolOutcome (id)        a tool batch's per-call transactions (tools.go:
//	PlaceTools() / ToolReplayClear(id)   pi's runtime/drive/tools.ts, tool-placement.ts;
//	ToolPlacementRead()                  the read whose results' message events precede
//	                                     the placement's commit; ToolAdmitted(): the
//	                                     effect gate admitted the live call's run)
//	Cancel() / Finalize(status, err)     durable cancel_requested / external terminal TX (refused
//	                                     unless an error comes exactly with "failed")
//	Crash() / Close()                    process loss (queued work lost) / controlled crash
//
// Frames: the model does not encode. It takes the frame the codec produced
// and checks only the lifecycle rules around it — at most one frame per
// event, none for done/error, none before start or after the stream ended,
// enqueued before the next event, committed in FIFO order and only while the
// invocation fence holds (the current operation is at assistant/deferred
// effect_pending with the frame's responseEntryId), declined otherwise.
// What the committed frames reduce to is the observed message (model/frames)
// after the event of the last committed frame; the driver plugs in an
// Observer, so this package still imports only impl/pi.
//
// # Outputs
//
// Committed() is the plain committed state (entries, usage rows, op state,
// results, lane state, branch tip, frame lists); Events() the emitted event
// sequence ("message_start", "entry_added(recovery)", "run_end:failed", …);
// Transcript() the entry ids along the branch; Snapshot() the expected
// streamingMessage. Every input returns an error when the implementation did
// something the rules forbid.
//
// # Rules stated here
//
//   - Scalar op state is the only restart authority: Crash keeps the
//     committed state and drops queued frames and the live stream.
//   - After settlement (live, synthetic, cancellation, terminal, external
//     finalization) there is no frame list for that response.
//   - A synthetic response (recovery, cancellation of a restored
//     effect_pending) is the reduced committed partial — or the empty
//     api:"unknown" message when no frame committed — with zero usage,
//     stopReason "error" and the exact warning W, settled under the reserved
//     response and usage ids; it never runs after_response.
//   - Cancellation wins classification, even over complete-looking content.
//   - Settlement awaits every accepted frame before after_response.
//   - A deferred replacement intent deletes the abandoned frame list.
//   - streamingMessage is the live partial while its stream holds the fence
//     (not after an external finalization), else the durable reduction for
//     effect_pending, else absent; never transcript.
package lane
