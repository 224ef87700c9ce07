package lane

import (
	"bytes"
	"encoding/json"
	"github.com/frameproof/frameproof/props/peer/procgroup"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/props/peer"
)

// errorFragments are provider error texts: pi-ai's documented examples for
// each retry and overflow pattern, the exclusions that override them, and
// texts that match nothing.
var errorFragments = []string{
	// transient
	"overloaded_error", "We are currently experiencing high demand", "model is at capacity", "Rate limit reached",
	"ratelimit", "rate_limit_error", "Too Many Requests", "429", "HTTP 500", "502 Bad Gateway", "503", "504", "520", "524",
	"Service Unavailable", "server_error", "Internal Error", "Provider returned error",
	"exceeded request buffer limit while retrying upstream", "network error", "connection error", "ECONNREFUSED connection refused",
	"connection lost", "other side closed", "fetch failed", "getaddrinfo ENOTFOUND api.example", "EAI_AGAIN",
	"upstream connect error", "reset before headers", "socket hang up", "socket connection was closed unexpectedly",
	"request timed out", "time out", "timeout", "terminated", "websocket closed", "WebSocket error",
	"stream ended without a stop event", "Anthropic stream ended before message_stop",
	"stream ended before a terminal response event", "http2 request did not get a response", "retry delay exceeds cap",
	"You can retry your request", "please try your request again", "Please retry your request", "ResourceExhausted",
	"subscription_sharing_usage_unavailable", "subscription_sharing_user_unavailable",
	// provider limits (not transient)
	"GoUsageLimitError", "FreeUsageLimitError", "Monthly usage limit reached", "enable available balance usage",
	"insufficient_quota", "out of budget", "Quota exceeded for metric", "check your billing details",
	"subscription_sharing_usage_limit_exceeded",
	// overflow
	"prompt is too long: 213462 tokens > 200000 maximum", "Prompt too long", "Prompt exceeds max length",
	`413 {"error":{"type":"request_too_large"}}`, "Input is too long for requested model",
	"Your input exceeds the context window of this model",
	"Requested token count exceeds the model's maximum context length of 131072 tokens",
	"Input length (265330) exceeds model's maximum context length (262144).",
	"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
	"This model's maximum prompt length is 131072 but the request contains 537812 tokens",
	"Please reduce the length of the messages or completion", "This endpoint's maximum context length is 8192 tokens",
	"Input length 9 exceeds the maximum allowed input length of 8 tokens.",
	"The input (10 tokens) is longer than the model's context length (5 tokens).",
	"prompt token count of 12 exceeds the limit of 10", "the request exceeds the available context size, try increasing it",
	"tokens to keep from the initial prompt is greater than the context length", "invalid params, context window exceeds limit",
	"Your request exceeded model token limit: 5 (requested: 9)", "too large for model with 32000 maximum context length",
	"Prompt has 1,000 tokens, but the configured context size is 900 tokens", "model_context_window_exceeded",
	"prompt too long; exceeded max context length by 5 tokens", "Range of input length should be [1, 30000]",
	"context_length_exceeded", "context length exceeded", "too many tokens", "token limit exceeded",
	// exclusions and bare statuses
	"Throttling error: too many tokens", "ThrottlingException: Too many tokens, please wait before trying again.",
	"Service unavailable: prompt too long", "400 status code (no body)", "413 (no body)", "400status code(no body)",
	// nothing
	"invalid api key", "bad request", "unsupported parameter", "ok", "",
}

type classifyCase struct {
	Message       map[string]any `json:"message"`
	ContextWindow float64        `json:"contextWindow"`
	OutputLimit   float64        `json:"outputLimit"`
}

// genClassifyCases builds messages from one to three fragments, with random
// ASCII case, stop reasons, providers, usage and context windows.
func genClassifyCases(r *rand.Rand, n int) ([]classifyCase, []*pi.AssistantMessage) {
	cases := make([]classifyCase, n)
	msgs := make([]*pi.AssistantMessage, n)
	stops := []pi.StopReason{pi.StopError, pi.StopError, pi.StopError, pi.StopStop, pi.StopLength, pi.StopToolUse}
	nums := []float64{0, 1, 99, 100, 101, 990, 1000, 5000}
	for i := range cases {
		var parts []string
		for k := 0; k < 1+r.IntN(3); k++ {
			parts = append(parts, errorFragments[r.IntN(len(errorFragments))])
		}
		text := []byte(strings.Join(parts, []string{" ", ": ", "", "\n"}[r.IntN(4)]))
		for j, c := range text {
			if r.IntN(4) == 0 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				text[j] = c ^ 0x20
			}
		}
		m := &pi.AssistantMessage{StopReason: stops[r.IntN(len(stops))], Provider: []string{"openai", "cerebras"}[r.IntN(2)],
			Usage: pi.Usage{Input: nums[r.IntN(len(nums))], CacheRead: nums[r.IntN(len(nums))], Output: nums[r.IntN(len(nums))]}}
		wire := map[string]any{"stopReason": string(m.StopReason), "provider": m.Provider,
			"usage": map[string]any{"input": m.Usage.Input, "cacheRead": m.Usage.CacheRead, "output": m.Usage.Output}}
		if r.IntN(8) != 0 {
			m.ErrorMessage = pi.Str(string(text))
			wire["errorMessage"] = string(text)
		}
		msgs[i] = m
		cases[i] = classifyCase{Message: wire, ContextWindow: []float64{0, 100, 1000}[r.IntN(3)], OutputLimit: []float64{0, 1, 100}[r.IntN(3)]}
	}
	return cases, msgs
}

// peerClassifyScript runs pi-ai's own exported predicates over the cases.
const peerClassifyScript = `
import { isRetryableAssistantError, isContextOverflow, isRecoverableLength } from "@earendil-works/pi-ai";
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
	const out = JSON.parse(input).map((c) => [
		isRetryableAssistantError(c.message),
		isContextOverflow(c.message, c.contextWindow),
		isRecoverableLength(c.message, c.outputLimit),
	]);
	process.stdout.write(JSON.stringify(out));
});
`

// The model's decision tables agree with pi-ai's isRetryableAssistantError,
// isContextOverflow and isRecoverableLength (utils/retry.js,
// utils/overflow.js), run in the pinned peer, on generated error messages.
func TestModelClassificationMatchesPeer(t *testing.T) {
	dir := peer.Require(t, peer.PiAI)
	node, err := exec.LookPath("node")
	require.NoError(t, err)
	n := 3000
	if testing.Short() {
		n = 600
	}
	cases, msgs := genClassifyCases(rand.New(rand.NewPCG(13, 13)), n)
	in, err := json.Marshal(cases)
	require.NoError(t, err)
	cmd := procgroup.CommandContext(t.Context(), node, "--input-type=module", "-e", peerClassifyScript)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "peer: %s", stderr.String())
	var want [][3]bool
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, n)
	seen := [3]int{}
	for i, m := range msgs {
		c := cases[i]
		got := [3]bool{ml.RetryableError(m), ml.ContextOverflow(m, c.ContextWindow), ml.RecoverableLength(m, c.OutputLimit)}
		require.Equal(t, want[i], got, "case %d: %+v (retryable, overflow, recoverable length)", i, c)
		for k := range got {
			if got[k] {
				seen[k]++
			}
		}
	}
	for k, name := range []string{"retryable", "overflow", "recoverable length"} {
		require.Positive(t, seen[k], "no generated case was %s", name)
		require.Less(t, seen[k], n, "every generated case was %s", name)
	}
}
