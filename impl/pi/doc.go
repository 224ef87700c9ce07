// Package pi is frameproof's shared vocabulary for pi-ai 1.0.3: assistant,
// user and tool-result messages, content blocks, usage, the 12 stream events
// and the 11 durable frames, plus a JSON value model that behaves like
// JavaScript's.
//
// Everything here serializes to exactly the bytes JSON.stringify writes for
// the value as pi-ai builds it. encoding/json is never used for output: it
// HTML-escapes and re-compacts Marshaler output. Use Marshal or AppendJSON.
//
// # Strings are JS strings stored as WTF-8
//
// JS strings are sequences of UTF-16 code units and may hold lone surrogates
// (a streamed delta can split an astral character). Go strings in this
// package are WTF-8: a valid surrogate pair is always the ordinary 4-byte
// UTF-8 sequence, and a lone surrogate U+D800..U+DFFF is stored as its 3-byte
// generalized UTF-8 form (ED A0..BF xx). Two adjacent lone surrogates that
// form a pair are never stored as two 3-byte sequences; Concat and every
// decoder in this package re-join them, as JS concatenation does. Bytes that
// are not WTF-8 at all (which a JS string cannot produce) read as U+FFFD.
// Lengths and offsets that pi computes with .length are UTF-16 code units:
// see UTF16Len and SliceUTF16.
//
// # Decoding policy
//
// Decoding (UnmarshalJSON, Decode*) follows JSON.parse for syntax, then maps
// the value onto the typed structs. Unknown object fields are rejected with an
// error naming the field and its path, so nothing is silently dropped;
// arbitrary JSON (tool arguments, details, deferred data, diagnostics) is kept
// as JSONValue in JS property order. Optional fields are pointers (or an
// Undefined JSONValue) so "absent" and "empty" stay distinct.
//
// Events are the exception: DecodeEvent (and DecodeLiveMessage,
// DecodeLiveContent) read a provider's live objects the way pi-ai's frame
// encoder does, which copies only the members its clone helpers name, so
// other members (the providers' streaming scratch such as "index" or
// "partialJson") are ignored, and an event of unknown type keeps only its
// type; of a done or error event it reads the type alone (DecodeStreamEvent
// also reads the stream's result, as a consumer of the stream does). Stored frames are read unchecked by frames.ReduceValues, as pi-ai's
// reducer reads them; DecodeFrame is the strict typed reading.
//
// # Key order
//
// Typed values are written in the order pi-ai's own objects have: content
// blocks and frames as the frame encoder's clone helpers build them;
// AssistantMessage as cloneStartMessage builds it (role, content, api,
// provider, model, responseModel, responseId, providerThinkingLevel,
// thinkingLevel, diagnostics, usage, stopReason, timestamp), followed by the
// fields providers assign after construction (deferred, errorMessage,
// rawStopReason, endTurn), which JS appends after timestamp.
package pi
