package subject

// HarnessSettings are the run settings pi's harness captures from its
// defaults (runtime/lane.ts capturedSettings), which model/lane's run
// carries: a subject that is not pi starts its runs with them.
const HarnessSettings = piSettings
