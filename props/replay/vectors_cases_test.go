package replay

import (
	"github.com/frameproof/frameproof/impl/pi"
	impl "github.com/frameproof/frameproof/impl/replay"
)

// vectorCase is one corpus entry before it is written: the record, the
// target and the assertions carried over from the original test (or the
// known gap) it stands for. expected is computed by the reference model when
// the corpus is regenerated (-update) and then reviewed; mustContain and
// mustNotContain hold the original test's own assertions, independent of
// both implementations.
type vectorCase struct {
	name      string
	source    string
	record    []pi.Appender
	wires     []string // default: all four
	vision    bool
	model     string
	principal *impl.Principal
	compact   *impl.MicrocompactOptions
	must      []string
	mustNot   []string
}

const (
	origin = "Fimeg/Souveraine src/core/session/mod.rs @765b0e4e test "
	gap    = "known gap (replay-and-wire-facts.md §1.5/§3): "
)

// signed is an assistant message from the vector target's own model, so its
// signed reasoning may cross.
func signed(wire string, blocks ...pi.Content) *pi.AssistantMessage {
	api, err := APIOf(wire)
	if err != nil {
		panic(err) // the case table names its wires literally
	}
	return AsstFrom(api, "prov", "model-a", pi.StopStop, blocks...)
}

func vectorCases() []vectorCase {
	longOutput := "file1\nfile2"
	cases := []vectorCase{
		{name: "only-speech-and-tool-evidence-have-prose", source: origin + "only_speech_and_tool_evidence_have_cross_turn_prose",
			record:  Record(UserBlocks(Image("image/png", "QUJD")), Asst(Thinking(ThinkMark+"private", "")), User("next")),
			must:    []string{"[Image: image/png — not visible to this model]", "next"},
			mustNot: []string{ThinkMark, "[Reasoning]", "QUJD"}},
		{name: "reasoning-never-replays-as-prose", source: origin + "reasoning_never_replays_as_visible_assistant_prose",
			record:  Record(User("q"), Asst(Thinking(ThinkMark+"secret plan", ""), Text("the answer")), User("and?"), Asst(Thinking(ThinkMark+"only", ""))),
			must:    []string{"the answer"},
			mustNot: []string{ThinkMark, "[Reasoning]"}},
		{name: "prose-carries-tool-name-and-output", source: origin + "replay_prose_carries_the_tool_name_and_its_output",
			record: Record(User("q"), Result("gone_1", "bash", "hello", false)),
			must:   []string{"Result (bash): hello"}},
		{name: "cross-turn-history-keeps-both-halves", source: origin + "cross_turn_tool_history_keeps_both_halves_of_every_pair",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_a", "bash", "cmd", "ls"), Call("call_b", "read", "path", "x")),
				Result("call_a", "bash", longOutput, false), User("next")),
			must:    []string{impl.UnfinishedCall, "file1\\nfile2"},
			mustNot: []string{"Tool use:"}},
		{name: "completed-round-never-becomes-prose", source: origin + "a_completed_round_never_replays_as_prose_she_can_imitate",
			record:  Record(User("list"), AsstStop(pi.StopToolUse, Call("call_1", "bash", "cmd", "ls")), Result("call_1", "bash", "a b", false), Asst(Text("there are two"))),
			mustNot: []string{"Tool use:", "bash(", "Result (bash)"}},
		{name: "whole-round-in-one-message-pairs", source: origin + "a_whole_round_stored_in_one_message_still_pairs_on_the_wire",
			record: Record(User("go"), AsstStop(pi.StopToolUse, Call("call_1", "bash"), Call("call_2", "grep"), Text("both done")),
				Result("call_1", "bash", "one", false), Result("call_2", "grep", "two", false)),
			must: []string{"both done"}},
		{name: "result-whose-call-is-gone-is-error-prose", source: origin + "a_result_whose_call_is_gone_carries_as_prose",
			record: Record(User("q"), Result("compacted_away", "edit", "permission denied", true), Asst(Text("ok"))),
			must:   []string{"Error (edit): permission denied"}},
		{name: "two-calls-stay-one-message", source: origin + "a_message_that_called_two_tools_stays_one_message",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Text("checking"), Call("call_1", "read", "path", "a"), Call("call_2", "read", "path", "b")),
				Result("call_1", "read", "A", false), Result("call_2", "read", "B", false))},
		{name: "policies-differ-only-in-image-seen", source: origin + "the_only_difference_between_policies_is_the_image", vision: true,
			record: Record(UserBlocks(Text("what is this"), Image("image/png", "QUJD")), Asst(Text("a cat"))),
			must:   []string{"QUJD"}, mustNot: []string{"not visible"}},
		{name: "policies-differ-only-in-image-unseen", source: origin + "the_only_difference_between_policies_is_the_image",
			record: Record(UserBlocks(Text("what is this"), Image("image/png", "QUJD")), Asst(Text("a cat"))),
			must:   []string{"[Image: image/png — not visible to this model]"}, mustNot: []string{"QUJD"}},
		{name: "degraded-image-says-not-seen", source: origin + "a_degraded_image_says_it_was_not_seen",
			record: Record(UserBlocks(Image("image/jpeg", "SECRETBASE64"))),
			must:   []string{"image/jpeg", "not visible to this model"}, mustNot: []string{"SECRETBASE64"}},
		{name: "native-image-keeps-its-role", source: origin + "a_native_image_keeps_the_role_that_produced_it", vision: true,
			record: Record(User("first"), Asst(Text("ok")), UserBlocks(Image("image/webp", "V0VCUA")))},
		{name: "leading-assistant-round-kept-with-results", source: "Fimeg/Souveraine src/bridge/claude_subscription.rs test leading_assistant_turn_drops_with_the_results_that_answer_it (frameproof keeps the round)",
			record: Record(AsstStop(pi.StopToolUse, Call("call_1", "bash")), Result("call_1", "bash", "done", false), User("continue")),
			must:   []string{"done", "continue"}},

		{name: "gap-is-error-survives", source: gap + "is_error dropped on the native path",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash")), Result("call_1", "bash", "exit 1", true))},
		{name: "gap-result-before-call", source: gap + "result stored before its call's message",
			record:  Record(User("q"), Result("call_1", "read", "early", false), AsstStop(pi.StopToolUse, Call("call_1", "read")), Asst(Text("fine"))),
			mustNot: []string{"Result (read)"}},
		{name: "gap-result-separated-from-call", source: gap + "call in message k, result in j>k+1 with messages between",
			record:  Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash")), User("are you there?"), Asst(Text("waiting")), Result("call_1", "bash", "late", false)),
			mustNot: []string{impl.UnfinishedCall}},
		{name: "gap-duplicate-results", source: gap + "duplicate results for one id",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash")), Result("call_1", "bash", "first", false), Result("call_1", "bash", "second", false)),
			must:   []string{"Result (bash): second"}},
		{name: "gap-adjacent-assistant-messages", source: gap + "adjacent assistant messages (legacy tool-role text)",
			record: Record(User("q"), Asst(Text("part one")), Asst(Text("part two")), AsstStop(pi.StopToolUse, Call("call_1", "glob")), Result("call_1", "glob", "x", false))},
		{name: "gap-tail-dangling-call", source: gap + "pi transform-messages does not flush a dangling call at the tail",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash"), Call("call_2", "bash"))),
			must:   []string{impl.UnfinishedCall}},
		{name: "gap-aborted-round-results-degrade", source: gap + "results of calls in a skipped aborted message stay orphans",
			record: Record(User("q"), AsstStop(pi.StopAborted, Text("let me"), Call("call_1", "bash")), Result("call_1", "bash", "partial", true), User("retry")),
			must:   []string{"Error (bash): partial"}, mustNot: []string{"let me"}},
		{name: "gap-errored-response-omitted", source: gap + "errored responses stay in the record but never cross",
			record:  Record(User("q"), AsstStop(pi.StopError, Text("half a sent")), User("again"), Asst(Text("whole answer"))),
			mustNot: []string{"half a sent"}},
		{name: "gap-tool-result-images-native", source: gap + "tool-result images rendered degraded even under Native", vision: true,
			record: Record(User("shot"), AsstStop(pi.StopToolUse, Call("call_1", "screenshot")), ResultBlocks("call_1", "screenshot", false, Image("image/png", "UE5H"))),
			must:   []string{"UE5H"}},
		{name: "gap-tool-result-images-unseen", source: gap + "tool-result images to a blind model",
			record: Record(User("shot"), AsstStop(pi.StopToolUse, Call("call_1", "screenshot")), ResultBlocks("call_1", "screenshot", false, Text("saved"), Image("image/png", "UE5H"))),
			must:   []string{"[Image: image/png — not visible to this model]"}, mustNot: []string{"UE5H"}},
		{name: "gap-cross-model-thinking-omitted", source: gap + "pi flattens cross-model thinking into text",
			record:  Record(User("q"), AsstFrom("anthropic-messages", "anthropic", "claude-other", pi.StopStop, Thinking(ThinkMark+"theirs", "c2ln"), Text("answer"))),
			mustNot: []string{ThinkMark}},
		{name: "gap-same-model-signed-thinking-crosses", source: gap + "signed reasoning of the same model crosses natively (not for Chat)",
			record: nil, // filled per wire below
		},
		{name: "gap-empty-result-not-empty-on-wire", source: gap + "tool_result: content cannot be empty if `is_error` is true",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash")), ResultBlocks("call_1", "bash", true)),
			must:   []string{impl.NoOutput}},
		{name: "principal-resident", source: "replay.md: current authority never replays (resident)",
			principal: &impl.Principal{Agent: "ani", UID: 1001, Account: "annie", ExpectedAccount: "annie", Node: "node-1"},
			record:    Record(User("who am I running as?")),
			must:      []string{"mode: dedicated resident", "drift: none", "annie"}},
		{name: "principal-borrowed", source: "replay.md: current authority never replays (borrowed mode warning)",
			principal: &impl.Principal{Agent: "kitty", Borrowed: true, UID: 1000, Account: "casey", ExpectedAccount: "casey", Node: "node-1"},
			record:    Record(User("q")),
			must:      []string{"borrowing casey's Unix authority"}},
		{name: "microcompact-six-calls-clears-one", source: gap + "microcompact keep-5 boundary (6 compactable calls, one non-compactable, one orphan)",
			compact: &impl.MicrocompactOptions{KeepRecent: 5, Tools: impl.CompactableTools},
			record:  microRecord(6),
			must:    []string{impl.ClearedResult, "out-2", "out-6", "web-out", "Result (read): orphan-out"}, mustNot: []string{"out-1\""}},
		{name: "microcompact-five-calls-clears-none", source: gap + "microcompact keep-5 boundary (5 compactable calls)",
			compact: &impl.MicrocompactOptions{KeepRecent: 5, Tools: impl.CompactableTools},
			record:  microRecord(5),
			mustNot: []string{impl.ClearedResult}},
		{name: "gemini-3-unsigned-call-gets-sentinel", source: "pi google-shared-gemini3-unsigned-tool-call.test.ts", wires: []string{impl.WireGemini}, model: "gemini-3-pro",
			record: Record(User("q"), AsstStop(pi.StopToolUse, Call("call_1", "bash")), Result("call_1", "bash", "ok", false)),
			must:   []string{impl.GeminiSkipSignature}},
	}
	return cases
}

// microRecord has n compactable calls (bash), one non-compactable call and
// one orphan result.
func microRecord(n int) []pi.Appender {
	msgs := Record(User("go"))
	for i := 1; i <= n; i++ {
		id := "call_" + string(rune('0'+i))
		msgs = append(msgs, AsstStop(pi.StopToolUse, Call(id, "bash")), Result(id, "bash", "out-"+string(rune('0'+i)), false))
	}
	msgs = append(msgs, AsstStop(pi.StopToolUse, Call("call_web", "web")), Result("call_web", "web", "web-out", false),
		Result("gone", "read", "orphan-out", false))
	return msgs
}

// signedThinking is the same-model reasoning record for one wire.
func signedThinking(wire string) []pi.Appender {
	sig := "c2lnbmF0dXJl"
	if wire == impl.WireOpenAIResponses {
		sig = `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"ZW5j"}`
	}
	return Record(User("q"),
		signed(wire, Thinking(ThinkMark+"mine", sig), Text("answer"), Call("call_1", "bash")),
		Result("call_1", "bash", "ok", false),
		signed(wire, Redacted("cmVkYWN0ZWQ="), Text("final")))
}
