package replay

import (
	"errors"
	"fmt"

	"github.com/frameproof/frameproof/impl/pi"
)

// ErrNothingToSend: no stored message crosses to a model (for example a
// transcript of only errored responses). No wire accepts an empty history.
var ErrNothingToSend = errors.New("replay: nothing to project: no message in the transcript crosses to a model")

// encoders holds one wire encoder per wire of the registry (impl/pi).
var encoders = map[string]func(w *jw, turns []turn, t Target, o Options){
	WireAnthropic:       encodeAnthropic,
	WireOpenAIChat:      encodeChat,
	WireOpenAIResponses: encodeResponses,
	WireGemini:          encodeGemini,
}

// Project returns the request body for t built from msgs, a transcript of
// *pi.UserMessage, *pi.AssistantMessage and *pi.ToolResultMessage. The
// result is deterministic: the same inputs give the same bytes. msgs is not
// modified.
func Project(msgs []pi.Appender, t Target, o Options) ([]byte, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	if o.Microcompact != nil {
		var err error
		if msgs, _, err = Microcompact(msgs, *o.Microcompact); err != nil {
			return nil, err
		}
	}
	turns, err := plan(msgs, t)
	if err != nil {
		return nil, err
	}
	if len(turns) == 0 {
		return nil, ErrNothingToSend
	}
	encode, ok := encoders[t.Wire]
	if !ok {
		return nil, fmt.Errorf("replay: unknown wire %q", t.Wire)
	}
	w := jw{b: make([]byte, 0, bodySizeHint(msgs))}
	encode(&w, turns, t, o)
	return w.b, nil
}

// bodySizeHint guesses the body's size so the buffer rarely regrows: a
// request body runs to a couple of hundred bytes per stored message.
func bodySizeHint(msgs []pi.Appender) int { return 256 + 192*len(msgs) }
