package lane

import (
	"github.com/frameproof/frameproof/impl/pi"
)

// decodeWritten is DecodeState's fast path for the bytes appendState
// writes: the same members in the same order, no whitespace, strings of
// printable ASCII without escapes, integers of at most 15 digits. It
// declines (ok false) anything else, and DecodeState then parses the tree;
// what it accepts it decodes to the state the tree decodes to
// (TestDecodeWrittenIsDecodeState). The opaque members (settings,
// streamOptions, task) are parsed by pi.ParseJSON from their own text, as
// the tree would parse them.
func decodeWritten(src string) (s *OpState, ok bool) {
	d := &stateDec{s: src}
	s = &OpState{}
	if d.lit(`{"at":`) {
		s.At = Leaf(d.str())
		if s.At != LeafStarting {
			return nil, false
		}
		d.need(`,"control":`)
		s.Control = d.control()
		d.need(`,"settings":`)
		s.Settings = d.opaque()
		d.need(`,"latestAssistantEntryId":`)
		s.LatestAssistantEntryID = d.optStr()
		d.need("}")
		return s, d.end()
	}
	d.need(`{"control":`)
	s.Control = d.control()
	d.need(`,"settings":`)
	s.Settings = d.opaque()
	d.need(`,"latestAssistantEntryId":`)
	s.LatestAssistantEntryID = d.optStr()
	d.need(`,"at":`)
	s.At = Leaf(d.str())
	switch s.At {
	case LeafAssistantReady:
		if d.lit(`,"continuation":`) { // carried from the checkpoint (carriesCheckpoint)
			if !d.checkpointPair(s) {
				return nil, false
			}
		}
		d.need(`,"generationContext":`)
		s.Gen = d.gen()
		d.need(`,"nextAttempt":`)
		s.NextAttempt = int(d.num())
	case LeafAssistantEffectPending:
		d.need(`,"generationContext":`)
		s.Gen = d.gen()
		d.need(`,"attempt":`)
		s.Attempt = int(d.num())
		d.need(`,"responseEntryId":`)
		s.ResponseEntryID = d.str()
		d.need(`,"usageId":`)
		s.UsageID = d.str()
		d.need(`,"intendedOutputLimit":`)
		s.IntendedOutputLimit = d.num()
		d.need(`,"contextWindow":`)
		s.ContextWindow = d.num()
	case LeafAssistantRetryWait:
		d.need(`,"generationContext":`)
		s.Gen = d.gen()
		d.need(`,"nextAttempt":`)
		s.NextAttempt = int(d.num())
		d.need(`,"notBefore":`)
		s.NotBefore = d.num()
		d.need(`,"errorMessage":`)
		s.ErrorMessage = d.str()
	case LeafDeferredSuspended, LeafDeferredEffectPending:
		d.need(`,"stepId":`)
		s.StepID = d.str()
		d.need(`,"sourceEntryId":`)
		s.SourceEntryID = d.str()
		d.need(`,"poll":`)
		s.Poll = int(d.num())
		if s.At == LeafDeferredEffectPending {
			d.need(`,"responseEntryId":`)
			s.ResponseEntryID = d.str()
			d.need(`,"usageId":`)
			s.UsageID = d.str()
		}
		d.need(`,"configuration":`)
		cfg := d.config()
		s.Configuration = &cfg
		d.need(`,"streamOptions":`)
		s.StreamOptions = d.opaque()
	case LeafCheckpoint:
		d.need(`,"continuation":`)
		if !d.checkpointPair(s) {
			return nil, false
		}
	case LeafTools:
		d.need(`,"batch":{"assistantEntryId":`)
		s.BatchAssistantEntryID = d.str()
		d.need(`,"configuration":`)
		cfg := d.config()
		s.Configuration = &cfg
		d.need(`,"turnId":`)
		s.BatchTurnID = d.str()
		d.need(`,"calls":[`)
		if !d.lit("]") {
			for {
				s.Calls = append(s.Calls, d.call())
				if d.lit("]") || d.s == "" {
					break
				}
				d.need(",")
			}
		}
		d.need("}")
	case LeafSummaryDeciding:
		if d.lit(`,"task":`) {
			s.Task = d.opaque()
		}
	default:
		return nil, false
	}
	d.need("}")
	return s, d.end()
}

// stateDec reads src from i; a failed read empties s, so every later
// read fails too and end reports false.
type stateDec struct {
	s string
	i int
}

func (d *stateDec) lit(l string) bool {
	if len(d.s)-d.i >= len(l) && d.s[d.i:d.i+len(l)] == l {
		d.i += len(l)
		return true
	}
	return false
}

func (d *stateDec) need(l string) {
	if !d.lit(l) {
		d.i, d.s = 0, "" // every later read fails
	}
}

// end reports whether every read succeeded and the text is used up.
func (d *stateDec) end() bool { return d.s != "" && d.i == len(d.s) }

func (d *stateDec) str() string {
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		d.need("\x00")
		return ""
	}
	for j := d.i + 1; j < len(d.s); j++ {
		c := d.s[j]
		if c == '"' {
			out := d.s[d.i+1 : j]
			d.i = j + 1
			return out
		}
		if c < 0x20 || c > 0x7e || c == '\\' {
			break
		}
	}
	d.need("\x00")
	return ""
}

func (d *stateDec) optStr() *string {
	if d.lit("null") {
		return nil
	}
	s := d.str()
	return &s
}

func (d *stateDec) num() float64 {
	j := d.i
	if j < len(d.s) && d.s[j] == '-' {
		j++
	}
	k := j
	var n int64
	for k < len(d.s) && d.s[k] >= '0' && d.s[k] <= '9' && k-j < 15 {
		n = n*10 + int64(d.s[k]-'0')
		k++
	}
	if k == j || (d.s[j] == '0' && k > j+1) || (k < len(d.s) && (d.s[k] >= '0' && d.s[k] <= '9' || d.s[k] == '.' || d.s[k] == 'e' || d.s[k] == 'E')) {
		d.need("\x00")
		return 0
	}
	neg := j > d.i
	d.i = k
	if neg {
		if n == 0 {
			d.need("\x00") // -0: left to the tree
			return 0
		}
		return -float64(n)
	}
	return float64(n)
}

func (d *stateDec) boolean() bool {
	if d.lit("true") {
		return true
	}
	d.need("false")
	return false
}

// opaque parses the JSON value at the cursor with pi.ParseJSON.
func (d *stateDec) opaque() pi.JSONValue {
	if d.lit("{}") {
		return pi.EmptyObject() // what pi.ParseJSON("{}") returns
	}
	end, ok := skipValue(d.s, d.i)
	if !ok {
		d.need("\x00")
		return pi.JSONValue{}
	}
	v, err := pi.ParseJSON(d.s[d.i:end])
	if err != nil {
		d.need("\x00")
		return pi.JSONValue{}
	}
	d.i = end
	return v
}

// skipValue returns the end of the JSON value starting at s[i]: a string,
// or the shortest text up to where the brackets it opens close, or a
// scalar up to the next delimiter. pi.ParseJSON checks that it is one.
func skipValue(s string, i int) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '"':
			for j++; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return 0, false
			}
			if depth == 0 {
				return j + 1, true
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j, j > i
			}
			depth--
			if depth == 0 {
				return j + 1, true
			}
		case ',':
			if depth == 0 {
				return j, j > i
			}
		}
	}
	if depth == 0 {
		return len(s), true
	}
	return 0, false
}

func (d *stateDec) control() Control {
	if d.lit(`{"status":"running"}`) {
		return Control{}
	}
	d.need(`{"status":"cancel_requested","requestedAt":`)
	c := Control{CancelRequested: true, RequestedAt: d.num()}
	d.need("}")
	return c
}

func (d *stateDec) config() Configuration {
	var c Configuration
	d.need(`{"model":{"provider":`)
	c.Model.Provider = d.str()
	d.need(`,"modelId":`)
	c.Model.ModelID = d.str()
	d.need(`},"thinkingLevel":`)
	c.ThinkingLevel = d.str()
	d.need(`,"activeToolNames":[`)
	n := 0
	if d.i < len(d.s) && d.s[d.i] != ']' {
		n = 1
		for j := d.i; j < len(d.s) && d.s[j] != ']'; j++ {
			if d.s[j] == ',' {
				n++
			}
		}
	}
	c.ActiveToolNames = make([]string, 0, n)
	if !d.lit("]") {
		for {
			c.ActiveToolNames = append(c.ActiveToolNames, d.str())
			if d.lit("]") || d.s == "" {
				break
			}
			d.need(",")
		}
	}
	d.need("}")
	return c
}

func (d *stateDec) gen() *GenerationContext {
	g := &GenerationContext{}
	d.need(`{"stepId":`)
	g.StepID = d.str()
	d.need(`,"triggerEntryId":`)
	g.TriggerEntryID = d.str()
	d.need(`,"configuration":`)
	g.Configuration = d.config()
	d.need(`,"streamOptions":`)
	g.StreamOptions = d.opaque()
	d.need(`,"retryPolicy":{"maxAttempts":`)
	g.RetryPolicy.MaxAttempts = int(d.num())
	d.need(`,"baseDelayMs":`)
	g.RetryPolicy.BaseDelayMs = d.num()
	if d.lit(`,"maxAgentDelayMs":`) {
		n := d.num()
		g.RetryPolicy.MaxAgentDelayMs = &n
	}
	d.need(`},"overflowRecoveryUsed":`)
	g.OverflowRecoveryUsed = d.boolean()
	d.need("}")
	return g
}

func (d *stateDec) call() PlannedCall {
	var c PlannedCall
	d.need(`{"status":`)
	c.Status = d.str()
	d.need(`,"sourceIndex":`)
	c.SourceIndex = int(d.num())
	d.need(`,"resultEntryId":`)
	c.ResultEntryID = d.str()
	switch c.Status {
	case CallPlanned:
	case CallEffectPending:
		d.need(`,"replay":`)
		c.Replay = d.str()
	case CallOutcomeReady, CallCompleted:
		d.need(`,"terminate":`)
		c.Terminate = d.boolean()
	default:
		d.need("\x00")
	}
	d.need("}")
	return c
}

// checkpointPair reads a checkpoint's continuation (past its member name)
// and the triggerEntryId member after it into s; false for a continuation
// kind it does not know.
func (d *stateDec) checkpointPair(s *OpState) bool {
	d.need(`{"kind":`)
	s.Continuation.Kind = d.str()
	switch s.Continuation.Kind {
	case ContinueNeedAssistant:
		d.need(`,"overflowRecoveryUsed":`)
		s.Continuation.OverflowRecoveryUsed = d.boolean()
	case ContinueMayFinish:
		d.need(`,"includeFinalAssistant":`)
		s.Continuation.IncludeFinalAssistant = d.boolean()
	default:
		return false
	}
	d.need(`},"triggerEntryId":`)
	s.TriggerEntryID = d.str()
	return true
}
