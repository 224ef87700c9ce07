// Package frames is pi-ai 1.0.3's durable assistant-message frame codec in
// Go: the AssistantMessageFrameEncoder (Encoder), reduceAssistantMessageFrames
// (ReduceValues over stored JSON as pi-ai reads it, JS semantics included;
// ReduceJSON and ValueReducer.ApplyJSON, the same from the stored bytes,
// reading delta frames and text and thinking start frames in the encoder's
// shape byte by byte; AppendReducedJSON, the same straight to the
// message's JSON, which copies canonical delta literals and writes a
// canonical start frame's partial from its bytes; Reduce over typed
// frames, the strict reading) and parseStreamingJson
// (ParseStreamingJSON), frame for frame and byte for byte, with pi's exact
// error messages (*Error, or V8's TypeError message where pi-ai would throw
// one).
//
// The encoder keeps state only for open blocks: two counters per text or
// thinking block and, per tool call that has not caught up with its start
// snapshot, the snapshot's JSON and the buffered delta JSON. It never holds a
// copy of the message. It does keep its current batch of delta frames alive
// (deltaSlabSize frames at most, each holding only its delta string).
package frames

// Error is an error pi-ai throws; Error() is pi's message, byte for byte.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func fail(format string, args ...any) error { return &Error{Msg: sprintf(format, args...)} }
