package lane

import (
	"strings"

	"github.com/frameproof/frameproof/impl/store"
)

// Command names an item of the lane's mutation line (impl/store Line): the
// command whose planner runs at the item's turn, and the name of the item's
// futures ("line:"+name). The simulator's lockstep (sim/lanesim
// check_lockstep.go) reads it to know which decision a commit stands for,
// so the names are one typed set: a misspelling on either side is a
// compile error, not a silently unmatched case.
type Command string

// The commands of the mutation line.
const (
	// run acceptance and start
	CmdStartRun   Command = "start-run"   // StartRun's run acceptance (drive.go)
	CmdLaneConfig Command = "lane-config" // a run start's lane configuration (laneconfig.go)
	CmdStartRead  Command = "start-read"  // a start step's read (checkpoint.go)
	CmdStart      Command = "start"       // a start step's commit (checkpoint.go)

	// drive steps
	CmdIntent              Command = "intent"               // a provider attempt's intent (drive.go)
	CmdRetryReady          Command = "retry-ready"          // a retry's readiness (drive.go)
	CmdRecoveryRead        Command = "recovery-read"        // a recovery step's frame read (recovery.go)
	CmdAbortedTerminal     Command = "aborted-terminal"     // a recovery step's aborted terminal (recovery.go)
	CmdCheckpoint          Command = "checkpoint"           // a boundary checkpoint (boundary.go)
	CmdFinish              Command = "finish"               // a run's completion (boundary.go)
	CmdDeferredSource      Command = "deferred-source"      // a deferred step's source read (deferred.go)
	CmdPollIntent          Command = "poll-intent"          // a deferred poll's intent (deferred.go)
	CmdThresholdRead       Command = "threshold-read"       // the compaction threshold's read (threshold.go)
	CmdOverflowPreparation Command = "overflow-preparation" // a context overflow's preparation (overflow.go)
	CmdSettle              Command = "settle"               // a response's settlement (settle.go)
	CmdFrame               Command = "frame"                // a frame append (progress.go)
	// a run whose configured tools or model the process lacks, failed
	// before its intent (availability.go)
	CmdConfigurationFailure Command = "configuration-failure"

	// tools
	CmdToolSource         Command = "tool-source"          // tools_tx.go
	CmdToolIntent         Command = "tool-intent"          // tools_tx.go
	CmdToolOutcome        Command = "tool-outcome"         // tools_tx.go
	CmdToolReplayClear    Command = "tool-replay-clear"    // tools_tx.go
	CmdToolCheckpointRead Command = "tool-checkpoint-read" // tools_tx.go
	CmdToolPlacementRead  Command = "tool-placement-read"  // placement.go
	CmdToolPlace          Command = "tool-place"           // placement.go

	// callers beside the driver
	CmdAbortRead    Command = "abort-read"    // Abort's read of the current operation (cancel.go)
	CmdCancel       Command = "cancel"        // a cancel request (cancel.go)
	CmdFinalize     Command = "finalize"      // an external finalization (terminal.go)
	CmdEnqueue      Command = "enqueue"       // an inbox item (queue.go)
	CmdCancelQueued Command = "cancel-queued" // an inbox item's cancellation (queue.go)
	CmdCapture      Command = "capture"       // a snapshot capture (snapshot.go)
)

// LineCommand is the command of the line item whose future is called
// future, and whether future is a line item's (impl/store names an item's
// futures "line:"+name and "line-settled:"+name).
func LineCommand(future string) (Command, bool) {
	name, ok := strings.CutPrefix(future, store.LineFuturePrefix)
	return Command(name), ok
}
