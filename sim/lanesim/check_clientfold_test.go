package lanesim

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
	ml "github.com/frameproof/frameproof/model/lane"
)

// checkQueues compares the fold's queued items with the model's committed
// inbox, kind and entry id, in order (pi's reduceLaneSnapshot takes each
// queue_update's queues whole): a missing item, an extra one, another kind
// or another order is reported, and the inbox itself is not.
func TestCheckQueuesComparesTheFoldWithTheInbox(t *testing.T) {
	const queued = `{"role":"user","content":[{"type":"text","text":"q"}],"timestamp":1}`
	item := func(id, kind string) pi.JSONValue {
		msg, err := pi.ParseJSON(queued)
		require.NoError(t, err)
		o := pi.NewObject()
		o.Set("entryId", pi.StringValue(id))
		o.Set("kind", pi.StringValue(kind))
		o.Set("type", pi.StringValue("message"))
		o.Set("message", msg)
		return pi.ObjectValue(o)
	}
	for name, tc := range map[string]struct {
		shown  []pi.JSONValue
		broken bool
	}{
		"the inbox":        {[]pi.JSONValue{item("e1", "steer"), item("e2", "followUp")}, false},
		"an item missing":  {[]pi.JSONValue{item("e1", "steer")}, true},
		"an extra item":    {[]pi.JSONValue{item("e1", "steer"), item("e2", "followUp"), item("e3", "steer")}, true},
		"another kind":     {[]pi.JSONValue{item("e1", "followUp"), item("e2", "followUp")}, true},
		"another order":    {[]pi.JSONValue{item("e2", "followUp"), item("e1", "steer")}, true},
		"no queues at all": {[]pi.JSONValue{}, true},
	} {
		r := bareRunner()
		require.NoError(t, r.ls.m.Enqueue("e1", "steer", ml.Canonical([]byte(queued))))
		require.NoError(t, r.ls.m.Enqueue("e2", "followUp", ml.Canonical([]byte(queued))))
		r.client.fold = &lane.ClientFold{Lane: laneName, Queues: pi.ArrayValue(tc.shown)}
		require.Equal(t, !tc.broken, r.client.checkQueues("test"), name)
		require.Equal(t, tc.broken, r.failed, "%s: %s", name, r.msg)
		if tc.broken {
			require.Contains(t, r.msg, "the lane's inbox is [steer:e1 followUp:e2]", name)
		}
	}
}
