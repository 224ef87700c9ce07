package provider

// Truth is what a provider "meant" to send: the content blocks, usage and
// stop reason of one assistant response, before any wire encodes it.
type Truth struct {
	ResponseID string   `json:"responseId"`
	Model      string   `json:"model"`
	Blocks     []TBlock `json:"blocks"`
	Usage      TUsage   `json:"usage"`
	// Length marks a response cut by the token limit (stop reason "length");
	// otherwise the stop reason is "toolUse" with tool calls, else "stop".
	Length bool `json:"length,omitempty"`
}

// Block kinds of a Truth.
const (
	KText     = "text"
	KThinking = "thinking"
	KRedacted = "redacted"
	KToolCall = "toolCall"
)

// TBlock is one content block of the truth.
type TBlock struct {
	Kind string `json:"kind"`
	// Text is the text or thinking body.
	Text string `json:"text,omitempty"`
	// Signature is the thinking signature, the redacted-thinking payload, or
	// Gemini's thoughtSignature on a text part or function call.
	Signature string `json:"signature,omitempty"`
	ToolID    string `json:"toolId,omitempty"`
	Name      string `json:"name,omitempty"`
	// ArgsJSON is the tool arguments exactly as the wire streams them.
	ArgsJSON string `json:"argsJson,omitempty"`
	// Pieces are the delta sizes (in runes of Text, bytes of ArgsJSON) the
	// wire splits the body into; the rest goes into a final delta.
	Pieces []int `json:"pieces,omitempty"`
	// UTF16Pieces counts Text's Pieces in UTF-16 code units, so a delta may
	// end inside a surrogate pair: the wire then carries a lone surrogate as
	// a "\ud83d" JSON escape, which JS decodes and re-joins by concatenation.
	// Only Anthropic and OpenAI (JSON strings decoded by JSON.parse) can
	// carry that; Gemini cannot (its text is protobuf UTF-8, which has no
	// lone surrogates), so the generator never sets it there.
	UTF16Pieces bool `json:"utf16Pieces,omitempty"`
}

// TUsage is the response's token usage; Input excludes cached tokens.
type TUsage struct {
	Input      int `json:"input"`
	Output     int `json:"output"`
	CacheRead  int `json:"cacheRead"`
	CacheWrite int `json:"cacheWrite"`
	Reasoning  int `json:"reasoning"`
}

// Failure kinds a scenario can inject.
const (
	FailNone       = ""
	FailErrorEvent = "error-event" // the provider sends its in-stream error event and stops
	FailErrorStop  = "error-stop"  // the provider stops with a failure stop reason (filter, refusal)
	FailHTTP       = "http-status" // the provider answers with an HTTP error status
	FailDisconnect = "disconnect"  // the connection drops mid-stream
)

// Transport is how the rendered stream travels: faults that must not change
// the message (chunking, keep-alives, CRLF, interleaving, complete tool
// arguments at start) and failures that must end it with an error.
type Transport struct {
	// Cuts are chunk boundaries in permille of the rendered byte length.
	Cuts []int `json:"cuts,omitempty"`
	// Pings inserts a keep-alive before the wire events at these indexes.
	Pings []int `json:"pings,omitempty"`
	CRLF  bool  `json:"crlf,omitempty"`
	// Interleave round-robins the argument deltas of consecutive tool calls
	// (on wires that index tool calls); Order picks the next call each step.
	Interleave bool  `json:"interleave,omitempty"`
	Order      []int `json:"order,omitempty"`
	// ArgsAtStart sends complete tool arguments at block start where the wire
	// has a place for them.
	ArgsAtStart bool `json:"argsAtStart,omitempty"`

	Failure string `json:"failure,omitempty"`
	// FailAt is the wire event index after which an error event is sent,
	// or the permille of the byte length at which the connection drops.
	FailAt int `json:"failAt,omitempty"`
	Status int `json:"status,omitempty"`
}

// Scenario is one fuzz case: a truth on a wire over a transport.
type Scenario struct {
	Wire      string    `json:"wire"`
	Truth     Truth     `json:"truth"`
	Transport Transport `json:"transport"`
}

// hasTools reports whether the truth contains tool calls.
func (t Truth) hasTools() bool {
	for _, b := range t.Blocks {
		if b.Kind == KToolCall {
			return true
		}
	}
	return false
}

// StopReason is pi-ai's stop reason for the truth.
func (t Truth) StopReason() string {
	switch {
	case t.Length:
		return "length"
	case t.hasTools():
		return "toolUse"
	}
	return "stop"
}
