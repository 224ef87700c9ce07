package lane

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	"github.com/frameproof/frameproof/impl/store"
	ml "github.com/frameproof/frameproof/model/lane"
	"pgregory.net/rapid"
)

// Tool batches in the lockstep (Options.Tools): the lane and the model get
// the same three tools (props/codec's streams call read, write, bash and
// ns.tool; runs activate none, read, or read and bash), the model is fed
// each tool transaction when it is acknowledged and each tool run when the
// lane's effect gate admitted it. A run at times makes the next commit (its
// outcome) the crash point, so restarts find calls effect_pending.

// propTool is one tool, in neither side's vocabulary.
type propTool struct {
	name, replay string
	terminate    bool
}

var propTools = []propTool{{name: "read"}, {name: "bash", replay: "safe"}, {name: "write", terminate: true}}

// propToolText is a tool's deterministic answer to args.
func propToolText(name string, args pi.JSONValue) string {
	return name + " " + string(args.AppendJSON(nil))
}

func (d *driver) laneTools() []lane.Tool {
	var out []lane.Tool
	for _, t := range propTools {
		t := t
		out = append(out, lane.Tool{Name: t.name, Replay: t.replay, Run: func(args pi.JSONValue) lane.ToolOutput {
			d.mu.Lock()
			if !d.lost {
				d.opts.Stats.add("tool:run")
				d.failLocked(d.model.ToolAdmitted())
			}
			d.mu.Unlock()
			if rapid.IntRange(0, 3).Draw(d.t, "crashInTool") == 0 {
				d.g.crashAtNextCommit() // the process dies with the call's effect pending
			}
			return lane.ToolOutput{Content: []pi.Content{pi.TextContent{Text: propToolText(t.name, args)}}, Terminate: t.terminate}
		}})
	}
	return out
}

func modelTools() []ml.ToolSpec {
	var out []ml.ToolSpec
	for _, t := range propTools {
		t := t
		out = append(out, ml.ToolSpec{Name: t.name, Replay: t.replay, Run: func(args pi.JSONValue) ml.ToolRun {
			return ml.ToolRun{Content: []pi.Content{pi.TextContent{Text: propToolText(t.name, args)}}, Terminate: t.terminate}
		}})
	}
	return out
}

// toolInput is the model input an acknowledged tool transaction stands for
// (nil for any other transaction), named by its writes alone.
func toolInput(m *ml.Model, ws []store.Write) (func() error, string) {
	var state *lane.OpState
	var argsKey, staged, cleared string
	placed := false
	for _, w := range ws {
		switch {
		case w.Kind == store.WriteValue && w.Namespace == lane.NSOpState && w.Op == store.OpSet:
			state, _ = lane.DecodeState(w.Value)
		case w.Kind == store.WriteValue && w.Namespace == lane.NSToolArgs && w.Op == store.OpSet:
			argsKey = w.Key
		case w.Kind == store.WriteValue && w.Namespace == lane.NSPendingEntry && w.Op == store.OpSet &&
			strings.Contains(string(w.Value), `"role":"toolResult"`):
			staged = w.Key
		case w.Kind == store.WriteValue && w.Namespace == lane.NSPendingOutput && w.Op == store.OpDelete && len(ws) == 1:
			_, cleared, _ = strings.Cut(w.Key, ":")
		case w.Kind == store.WriteEntry && w.Entry != nil && strings.Contains(string(w.Entry.Raw), `"role":"toolResult"`):
			placed = true
		}
	}
	switch {
	case argsKey != "":
		id, err := intentCall(argsKey, state)
		return func() error {
			if err != nil {
				return err
			}
			return m.ToolIntent(id)
		}, "tool-intent"
	case staged != "":
		return func() error { return m.ToolOutcome(staged) }, "tool-outcome"
	case cleared != "":
		return func() error { return m.ToolReplayClear(cleared) }, "tool-replay-clear"
	case placed:
		return m.PlaceTools, "tool-place"
	}
	return nil, ""
}

// intentCall is the result id of the call whose arguments key
// "<op>:<turn>:<sourceIndex>" an intent stored, through its op state.
func intentCall(key string, st *lane.OpState) (string, error) {
	src, err := strconv.Atoi(key[strings.LastIndexByte(key, ':')+1:])
	if err != nil || st == nil {
		return "", fmt.Errorf("tool intent: arguments key %q and state name no call", key)
	}
	for _, c := range st.Calls {
		if c.SourceIndex == src {
			return c.ResultEntryID, nil
		}
	}
	return "", fmt.Errorf("tool intent: no call of the batch has source index %d", src)
}

// addToolCall appends, at times, one more tool call to a toolUse response's
// final message (pi-ai's done message is the response the lane settles),
// so tool batches are frequent: read, bash, write or an unknown tool.
func addToolCall(d *driver, final *pi.AssistantMessage) {
	if rapid.IntRange(0, 3).Draw(d.t, "extraToolCall") == 0 {
		return
	}
	name := rapid.SampledFrom([]string{"read", "read", "bash", "write", "ghost"}).Draw(d.t, "extraToolName")
	args := mustJSON(`{"k":` + strconv.Itoa(rapid.IntRange(0, 9).Draw(d.t, "extraToolArg")) + `}`)
	final.Content = append(final.Content, pi.ToolCall{ID: "call_x" + strconv.Itoa(len(final.Content)), Name: name, Arguments: args})
}
