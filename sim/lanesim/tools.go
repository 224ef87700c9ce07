package lanesim

import (
	"strings"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
	"github.com/frameproof/frameproof/sim/choice"
)

// The simulated tool set: ONE deterministic function per tool, handed to
// the lane (lane.Tool) and, adapted, to the lockstep model (ml.ToolSpec).
// A run's configuration activates some of them; the provider also calls
// names that are configured but inactive ("write") or unknown ("ghost"),
// which pi answers with prepareToolCall's "unavailable" error.
const (
	toolRead   = "read"   // text derived from the arguments; an image for a .png path
	toolFetch  = "fetch"  // replay "safe"; an error result for empty arguments
	toolFinish = "finish" // terminates the run (may_finish when every call does)
	toolWrite  = "write"  // configured, not active
	toolGhost  = "ghost"  // not configured
)

// simActiveTools are every run's configuration.activeToolNames.
var simActiveTools = []string{toolRead, toolFetch, toolFinish}

// simToolCallNames are the names the provider's tool calls draw from.
var simToolCallNames = []string{toolRead, toolRead, toolFetch, toolFinish, toolWrite, toolGhost}

// simToolOutput is what a tool returns, in neither side's vocabulary.
type simToolOutput struct {
	content   []pi.Content
	details   pi.JSONValue
	isError   bool
	terminate bool
}

// simTool is one tool of the set.
type simTool struct {
	name, replay string
	run          func(args pi.JSONValue) simToolOutput
}

func simToolSet() []simTool {
	return []simTool{
		{name: toolRead, replay: "never", run: runRead},
		{name: toolFetch, replay: "safe", run: runFetch},
		{name: toolFinish, run: runFinish},
		{name: toolWrite, run: runRead},
	}
}

func text(s string) pi.Content { return pi.TextContent{Text: s} }

// runRead answers "read <args JSON>", and details naming the path when the
// arguments have one. A .png path answers a tiny PNG alone and arguments
// without members answer no content at all, so results without text reach
// the transcript, the snapshots and the replay projection.
func runRead(args pi.JSONValue) simToolOutput {
	out := simToolOutput{content: []pi.Content{text("read " + string(args.AppendJSON(nil)))}}
	if args.Kind() == pi.Object && len(args.ObjectValue().Keys()) == 0 {
		out.content = []pi.Content{}
	}
	if p := args.Prop("path"); p.Kind() == pi.String {
		d := pi.NewObject()
		d.Set("path", p)
		out.details = pi.ObjectValue(d)
		if len(p.Str()) > 4 && p.Str()[len(p.Str())-4:] == ".png" {
			out.content = []pi.Content{pi.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"}}
		}
	}
	return out
}

// runFetch fails on arguments without members (an error result, as a
// throwing execute gives) and otherwise answers with their keys.
func runFetch(args pi.JSONValue) simToolOutput {
	if args.Kind() != pi.Object || len(args.ObjectValue().Keys()) == 0 {
		return simToolOutput{content: []pi.Content{text("fetch: nothing to fetch")}, isError: true}
	}
	s := "fetched"
	for _, k := range args.ObjectValue().Keys() {
		s += " " + k
	}
	return simToolOutput{content: []pi.Content{text(s)}}
}

func runFinish(pi.JSONValue) simToolOutput {
	return simToolOutput{content: []pi.Content{text("finished")}, terminate: true}
}

// laneTools is the set for the lane process r is opening. A run starts
// only once the lane's effect gate admitted it, which the lockstep model
// is told; then it takes a drawn while (a tool's effect takes time), so
// cancels, crashes and closes land while a call's effect is pending; the
// output does not depend on it.
func (r *runner) laneTools() []lane.Tool {
	gen := r.gen
	var out []lane.Tool
	for _, t := range simToolSet() {
		run := t.run
		out = append(out, lane.Tool{Name: t.name, Replay: t.replay, Run: func(args pi.JSONValue) lane.ToolOutput {
			if r.ls.live(gen) {
				r.ls.toolAdmitted()
				r.disturbToolRun(gen)
			}
			r.pause("tool-run", 30)
			o := run(args)
			return lane.ToolOutput{Content: o.content, Details: o.details, IsError: o.isError, Terminate: o.terminate}
		}})
	}
	return out
}

// modelTools is the same set for the lockstep model.
func modelTools() []ml.ToolSpec {
	var out []ml.ToolSpec
	for _, t := range simToolSet() {
		run := t.run
		out = append(out, ml.ToolSpec{Name: t.name, Replay: t.replay, Run: func(args pi.JSONValue) ml.ToolRun {
			o := run(args)
			return ml.ToolRun{Content: o.content, Details: o.details, IsError: o.isError, Terminate: o.terminate}
		}})
	}
	return out
}

// rowToolOutcomes records which kinds of tool outcome a run produced (a
// coverage row outside the race table: Outcome.RaceOrders reports it):
// "ran", "error-result", "terminated", "unavailable", "truncated",
// "aborted", "interrupted", "replayed" (a safe call run again after a
// restart).
const rowToolOutcomes = "tool-outcomes"

// noteToolEvent classifies a tool_start / tool_end event into
// rowToolOutcomes.
func (r *runner) noteToolEvent(ev lane.Event) {
	r.toolOverlap.note(r, ev)
	switch {
	case ev.Type == lane.EvToolStart && ev.Recovery && !ev.Args.IsUndefined() && r.replayStarts(ev):
		r.race(rowToolOutcomes, "replayed")
	case ev.Type == lane.EvToolStart:
		r.cancelAtToolStart()
	case ev.Type == lane.EvToolEnd:
		r.race(rowToolOutcomes, toolOutcomeKind(ev))
		if shape := toolResultShape(ev); shape != "" {
			r.race(rowToolResultShape, shape)
		}
	}
}

// rowToolResultShape records tool results without text (a coverage row
// outside the race table): "empty" (no content) or "images-only".
const (
	rowToolResultShape    = "tool-result-shape"
	orderResultEmpty      = "empty"
	orderResultImagesOnly = "images-only"
)

// toolResultShape names a tool_end result's content when it holds no text.
func toolResultShape(ev lane.Event) string {
	content := ev.ToolResult.Prop("content").Array()
	if len(content) == 0 {
		return orderResultEmpty
	}
	for _, b := range content {
		if b.Prop("type").Str() != "image" {
			return ""
		}
	}
	return orderResultImagesOnly
}

// replayStarts: a recovery tool_start that a replay clear emitted, not the
// intent of a planned call in a recovering batch (which also finds its call
// effect_pending and "safe" once its intent committed).
func (r *runner) replayStarts(lane.Event) bool {
	if r.ls.replayClears == 0 {
		return false
	}
	r.ls.replayClears--
	return true
}

// toolOutcomeKind names a tool_end's outcome by its result's text.
func toolOutcomeKind(ev lane.Event) string {
	var texts []string
	for _, b := range ev.ToolResult.Prop("content").Array() {
		if t := b.Prop("text"); t.Kind() == pi.String {
			texts = append(texts, t.Str())
		}
	}
	if len(texts) == 0 {
		texts = []string{""}
	}
	first, last := texts[0], texts[len(texts)-1]
	switch {
	case last == lane.InterruptionMarker:
		return "interrupted"
	case first == "Tool execution was cancelled before completion.":
		return "aborted"
	case ev.IsError && strings.HasPrefix(first, "Tool call "):
		return "truncated"
	case ev.IsError && strings.HasPrefix(first, "Tool ") && strings.HasSuffix(first, " is unavailable"):
		return "unavailable"
	case ev.Terminate:
		return "terminated"
	case ev.IsError:
		return "error-result"
	}
	return "ran"
}

// disturbToolRun, at times, starts a crash (profiles with crashes) or a
// client's cancel (profiles with a canceller) in an actor of its own as a
// tool starts running, so they land while the call's effect is pending
// (restart: interrupted, or a safe replay; cancel: the batch's other calls
// aborted) and not only on streams.
func (r *runner) disturbToolRun(gen int) {
	switch {
	case r.p.crashes > 0 && choice.Chance(r.w, "tool-run-crash", 1, 6):
		r.w.Root().Go("tool-crasher", func() {
			if r.gen == gen && !r.finished && !r.failed {
				r.crashAndRestart("crash during a tool run of", true)
			}
		})
	case r.p.canceller && choice.Chance(r.w, "tool-run-cancel", 1, 6):
		r.goCancel(gen)
	}
}

// cancelAtToolStart, at times, starts a client's cancel as the lane
// delivers a tool_start: it may begin before the gate admits the run
// (execution/tools.ts executeToolCall refuses it: aborted).
func (r *runner) cancelAtToolStart() {
	if r.p.canceller && choice.Chance(r.w, "tool-start-cancel", 1, 6) {
		r.goCancel(r.gen)
	}
}

func (r *runner) goCancel(gen int) {
	r.w.Root().Go("tool-canceller", func() {
		if r.gen == gen && !r.finished && !r.failed && !r.closing {
			r.requestCancel()
		}
	})
}

// rowToolOverlap records runParallel's interleavings (a coverage row
// outside the race table): "overlapping-runs" when a call starts while an
// earlier call of the process is still open, "ended-out-of-order" when a
// call ends before an earlier started one.
const rowToolOverlap = "tool-overlap"

// toolOverlap tracks one process's open calls (started, not ended) in
// start order for rowToolOverlap.
type toolOverlap struct {
	gen  int      // the process the calls belong to
	open []string // its calls started and not ended, in start order
}

// note records a tool_start / tool_end event of process r.gen.
func (o *toolOverlap) note(r *runner, ev lane.Event) {
	if o.gen != r.gen {
		o.gen, o.open = r.gen, nil
	}
	switch ev.Type {
	case lane.EvToolStart:
		if len(o.open) > 0 {
			r.race(rowToolOverlap, "overlapping-runs")
		}
		o.open = append(o.open, ev.ToolCallID)
	case lane.EvToolEnd:
		for i, id := range o.open {
			if id != ev.ToolCallID {
				continue
			}
			if i > 0 {
				r.race(rowToolOverlap, "ended-out-of-order")
			}
			o.open = append(o.open[:i:i], o.open[i+1:]...)
			break
		}
	}
}
