package lane

import (
	"github.com/frameproof/frameproof/impl/frames"
	"github.com/frameproof/frameproof/impl/pi"
)

// reduceStored is what pi's recovery (runtime/drive/recovery.ts) and
// captureLaneSnapshot do with a committed frame list: pi-ai's
// reduceAssistantMessageFrames over the stored values as they are
// (frames.ReduceValues: unknown frame types are skipped, members are not
// checked). Only an error pi-ai itself throws is returned; a frame pi's
// types would reject is never a reason to fault the lane.
//
// The lane carries typed messages, so the reduction is read back with
// pi.DecodeLiveMessage (members pi's types do not name are dropped). A
// reduction no typed message can hold (a text left undefined by a text_end
// without content, a partial without a model) has no committed partial
// here: the response settles as if no frame had been committed. pi would
// commit the odd message as it is; frames.Reduce (the strict reading) names
// the frame at fault.
func reduceStored(fs []pi.JSONValue) (*pi.AssistantMessage, error) {
	v, err := frames.ReduceValues(fs)
	if err != nil || v.IsUndefined() {
		return nil, err
	}
	m, err := pi.DecodeLiveMessage(v, "$")
	if err != nil {
		return nil, nil
	}
	return m, nil
}
