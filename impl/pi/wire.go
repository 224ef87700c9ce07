package pi

import (
	"fmt"
	"strings"
)

// Wire is one provider wire: pi-ai's api name (AssistantMessage.api, the
// KnownApi union in pi-ai's types.ts) and the short name frameproof's
// replay layers, corpus and CLI use. It is the one table of wires: every
// layer (adapter, renderer, projection, validator, model, generator)
// derives its list from Wires and rejects a name that is not in it.
type Wire struct {
	API   string
	Short string
	// Aliases are further names WireByName accepts (CLI convenience).
	Aliases []string
}

// pi-ai api names (pi-ai types.ts KnownApi).
const (
	APIAnthropicMessages  = "anthropic-messages"
	APIOpenAICompletions  = "openai-completions"
	APIOpenAIResponses    = "openai-responses"
	APIGoogleGenerativeAI = "google-generative-ai"
)

// Short wire names.
const (
	WireAnthropic       = "anthropic"
	WireOpenAIChat      = "openai-chat"
	WireOpenAIResponses = "openai-responses"
	WireGemini          = "gemini"
)

var wires = []Wire{
	{API: APIAnthropicMessages, Short: WireAnthropic},
	{API: APIOpenAICompletions, Short: WireOpenAIChat, Aliases: []string{"chat"}},
	{API: APIOpenAIResponses, Short: WireOpenAIResponses, Aliases: []string{"responses"}},
	{API: APIGoogleGenerativeAI, Short: WireGemini, Aliases: []string{"google"}},
}

// Wires lists every wire in a fixed order.
func Wires() []Wire { return append([]Wire(nil), wires...) }

// WireAPIs lists the wires' api names in table order.
func WireAPIs() []string { return wireNames(func(w Wire) string { return w.API }) }

// WireShorts lists the wires' short names in table order.
func WireShorts() []string { return wireNames(func(w Wire) string { return w.Short }) }

func wireNames(f func(Wire) string) []string {
	out := make([]string, len(wires))
	for i, w := range wires {
		out[i] = f(w)
	}
	return out
}

// WireByName finds a wire by its api name, short name or an alias.
func WireByName(name string) (Wire, error) {
	for _, w := range wires {
		if name == w.API || name == w.Short {
			return w, nil
		}
		for _, a := range w.Aliases {
			if name == a {
				return w, nil
			}
		}
	}
	return Wire{}, fmt.Errorf("pi: unknown wire %q (known: %s)", name, strings.Join(WireAPIs(), ", "))
}
