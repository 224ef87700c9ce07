package lane

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/frameproof/frameproof/props/peer/procgroup"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
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

// The model's decision tables and impl/lane's patterns agree with pi-ai's
// isRetryableAssistantError, isContextOverflow and isRecoverableLength
// (utils/retry.js, utils/overflow.js), run in each pinned peer, on
// generated error messages: pi-ai 1.0.3 (the tree's, the default), and the
// pi-ai releases the published pi-agent-core 0.85.1, 0.87.1 and 0.99.1
// resolve, under the option (Config.ErrorPatterns) set to them.
func TestClassificationMatchesEachPeerRelease(t *testing.T) {
	for _, c := range []struct {
		peer    peer.Name
		release pi.AIRelease
	}{{peer.PiAI, pi.AI103}, {peer.PiAgentCore, pi.AI0851}, {peer.PiAgentCore0871, pi.AI0871}, {peer.PiAgentCore0991, pi.AI0991}} {
		t.Run(string(c.release), func(t *testing.T) {
			want, cases, msgs := runPeerClassify(t, peer.Require(t, c.peer))
			seen := [3]int{}
			for i, m := range msgs {
				k := cases[i]
				got := [3]bool{ml.RetryableErrorIn(c.release, m), ml.ContextOverflowIn(c.release, m, k.ContextWindow),
					ml.RecoverableLength(m, k.OutputLimit)}
				require.Equal(t, want[i], got, "model, case %d: %+v (retryable, overflow, recoverable length)", i, k)
				impl := [3]bool{lane.IsRetryableIn(c.release, m), lane.IsContextOverflowIn(c.release, m, k.ContextWindow),
					lane.IsRecoverableLength(m, k.OutputLimit)}
				require.Equal(t, want[i], impl, "impl/lane, case %d: %+v", i, k)
				for j := range got {
					if got[j] {
						seen[j]++
					}
				}
			}
			for j, name := range []string{"retryable", "overflow", "recoverable length"} {
				require.Positive(t, seen[j], "no generated case was %s", name)
				require.Less(t, seen[j], len(msgs), "every generated case was %s", name)
			}
		})
	}
}

// The releases classify differently: on the same generated messages, each
// older release's verdicts differ from 1.0.3's on some (the texts pi-ai
// added patterns for), so the test above holds each option to its own
// release, not to 1.0.3's answers under another name.
func TestReleasesClassifyDifferently(t *testing.T) {
	_, msgs := genClassifyCases(rand.New(rand.NewPCG(13, 13)), 3000)
	for _, r := range []pi.AIRelease{pi.AI0991, pi.AI0871, pi.AI0851} {
		differ := 0
		for _, m := range msgs {
			if ml.RetryableErrorIn(r, m) != ml.RetryableError(m) || ml.ContextOverflowIn(r, m, 0) != ml.ContextOverflow(m, 0) {
				differ++
			}
		}
		require.Positive(t, differ, "pi-ai %s classified every message as 1.0.3 does", r)
	}
}

// runPeerClassify runs pi-ai's predicates in the peer dir over generated
// cases and returns pi-ai's verdicts with the cases.
func runPeerClassify(t *testing.T, dir string) ([][3]bool, []classifyCase, []*pi.AssistantMessage) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	cases, msgs := genClassifyCases(rand.New(rand.NewPCG(13, 13)), n)
	return peerClassify(t, dir, cases), cases, msgs
}

// peerClassify runs pi-ai's isRetryableAssistantError, isContextOverflow
// and isRecoverableLength (peerClassifyScript) in the peer dir over cases.
func peerClassify(t *testing.T, dir string, cases []classifyCase) [][3]bool {
	node, err := exec.LookPath("node")
	require.NoError(t, err)
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
	require.Len(t, want, len(cases))
	return want
}
