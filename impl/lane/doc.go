// Package lane is the lane lifecycle of one durable assistant response,
// following pi's code (pi-durability-facts.md §4–6) and the seed
// assistant-durability.md: the intent transaction that reserves response and
// usage ids, the provider loop that enqueues one fenced frame append per
// converted event on the FIFO line without awaiting it, settlement in pi's
// write order, first-match-wins classification, recovery of orphaned
// effect_pending from the committed frame prefix, cancellation
// reconciliation, deferred polls, tool batches (tools.go, tools_tx.go,
// tools_run.go, placement.go: pi's runTools in runSequential's order, with
// Config.Tools), external finalization, snapshots, idle forks and frame
// migrations.
//
// Compaction: an overflow settlement (overflow.go, pi's
// prepareOverflowCompaction) and, with a model registry (Config.Models), a
// run boundary past the threshold (threshold.go, pi's
// prepareCompactionThreshold, run first by runCheckpoint for need_assistant
// and may_finish checkpoints alike) write impl/compaction's preparation at
// pi.op.preparation and move to summary.deciding, where the run waits
// ("summary"); frameproof runs no summary decision, so a caller finalizes
// it. A threshold task resumes the checkpoint it interrupted
// (resume_checkpoint with the checkpoint's continuation and trigger).
//
// Every wait goes through env futures (the line, the listener, the
// provider's Stream.Next), so the simulator can drive every await.
//
// Events have one path (eventq.go): a command's batch is handed over on the
// line right after its commit and delivered off it, in commit order, before
// the command returns (pi's emitBatch inside session.mutate, delivery
// awaited after); events outside a command go through the same queue.
//
// # Entry points
//
//	Open(Config) → *Lane           restore lane state, tip and current op
//	(*Lane).Acquire                Harness.lane: create the lane if it has no pi.lane.config
//	(*Lane).StartRun(RunOptions)   user entry + op at starting (acceptRun)
//	(*Lane).Step / Drive           advance one leaf / until idle|waiting|settled
//	                               (starting → checkpoint → assistant.ready → …;
//	                               one Step runs a whole tool batch)
//	(*Lane).Abort                  Lane.abort: read the op on the line, RequestCancel it, drive it
//	(*Lane).RequestCancel          durable cancel_requested (+ Request.Abort): requestOperationAbort
//	(*Lane).Enqueue / CancelQueued queue input / remove one queued item (enqueue, cancelQueued)
//	(*Lane).Finalize[Async]        external terminal TX (deletes the frame list)
//	(*Lane).Close                  controlled crash: seal + drain, no writes
//	(*Lane).Snapshot               transcript + streamingMessage precedence
//	(*Lane).GenerateStructural     process-local stream, no frames, no events
//	ForkWrites / ForkState         idle fork image (fork.ts: entries keep seqs, values renumbered, lane state rebuilt)
//	MigrateFrames                  map every frame in place or drop the list
//	BugNames / WithBugs            injectable defects for mutation scoring (WithBugs: -tags frameproofbugs only)
//
// # Required tests (seed §Required tests → test)
//
// Frame integration:
//
//	shared live partials / bursts, no duplicates  TestRequiredEncoderSharedPartialBurstNoDuplicates
//	zero or one frame per event, covered → none   TestRequiredEachEventAppendsZeroOrOneFrame
//	done/error append nothing (incl. pre-start)   TestRequiredTerminalEventsAppendNothing
//	interleaved content indexes keep sequence     TestRequiredInterleavedContentIndexesPreserveSequence
//	loop does not await individual frame writes   TestRequiredProviderLoopDoesNotAwaitFrameWrites
//	appends enqueue before the next event         TestRequiredFrameAppendsEnqueueBeforeNextProviderEvent
//	only the latest promise is retained           TestRequiredOnlyLatestPromiseRetained
//	latest awaited ⇒ all earlier completed        TestRequiredDrainImpliesAllEarlierWrites
//	bounded output bounds queued frame memory     TestRequiredBoundedOutputBoundsQueuedFrameMemory
//	storage failure: no after_response, fault     TestRequiredStorageFailurePreventsAfterResponseAndFaults
//
// Settlement and recovery:
//
//	every response class deletes atomically       TestRequiredEveryResponseClassDeletesFrameList (+ TestSettlementWriteOrder)
//	crash at every frame/settlement boundary      TestRequiredCrashAtEveryFrameSettlementBoundary
//	no frames; partial text/thinking/tool frames  TestRequiredRecoveryNoFramesAndPartialFrames
//	authoritative end-frame content survives      TestRequiredAuthoritativeEndFrameContentSurvives
//	synthetic error then retry / fail at cap      TestRequiredInterruptedGenerationRetriesThenFailsAtCap
//	interrupted partial tool calls never execute  TestRequiredInterruptedPartialToolCallsNeverExecute
//	zero usage and reserved ids                   TestRequiredRecoveryUsesZeroUsageAndReservedIDs
//	cancellation keeps partial in aborted         TestRequiredCancellationPreservesPartialInSyntheticAborted
//	after_response never for restored synthetic   TestRequiredAfterResponseNeverRunsForRestoredSynthetic
//	(budget: recover the prefix + diagnostic)     TestRecoveryFrameBudget
//
// Deferred, snapshots and lifecycle:
//
//	deferred poll frames + normal cleanup         TestRequiredDeferredPollFramePersistenceAndCleanup
//	unknown poll snapshot without permit          TestRequiredUnknownPollSnapshotWithoutPermit
//	replacement intent deletes abandoned frames   TestRequiredReplacementIntentDeletesAbandonedPollFrames
//	live partial precedes durable reduction       TestRequiredLivePartialTakesPrecedence
//	reopen shows reduced streamingMessage         TestRequiredReopenExposesReducedStreamingMessage
//	no historical update event replay             TestRequiredNoHistoricalUpdateEventReplay
//	recovery clears partial on entry_added        TestRequiredRecoverySettlementClearsPartialOnEntryAdded
//	structural generation writes no frame list    TestRequiredStructuralGenerationWritesNoFrameList
//
// Storage lifecycle:
//
//	Memory/JSONL/SQLite reduce identical frames   TestRequiredBackendsReduceIdenticalFrameSequences
//	list absent after normal/synthetic/cancel/ext TestRequiredFrameListAbsentAfterTerminalTransitions (+ TestRaceAppendVersusExternalFinalization)
//	idle fork excludes frames                     TestRequiredIdleForkExcludesFrames
//	JSONL compaction removes deleted frame bytes  TestRequiredJSONLCompactionRemovesDeletedFrameBytes
//	migration maps or discards every frame        TestRequiredMigrationMapsOrDiscardsEveryLegacyFrame
//	telemetry: append/delete order, no content    TestRequiredTelemetryRecordsAppendDeleteOrderWithoutContent
//
// Lifecycle tests run on every backend in the test backend list (memory,
// jsonl, sqlite). TestBugsAreCaught (-tags frameproofbugs) shows each bug switch caught by a check.
package lane
