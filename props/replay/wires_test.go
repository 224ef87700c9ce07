package replay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/frameproof/frameproof/impl/pi"
	adapter "github.com/frameproof/frameproof/impl/provider"
	impl "github.com/frameproof/frameproof/impl/replay"
	model "github.com/frameproof/frameproof/model/replay"
	"github.com/frameproof/frameproof/model/wire"
	"github.com/frameproof/frameproof/props/provider"
)

// streamErrors runs the SSE adapter of api over body and returns the
// error messages it emitted.
func streamErrors(api string, body []byte) []string {
	var out []string
	adapter.Stream(adapter.Wire(api), bytes.NewReader(body), adapter.Meta{Provider: "p", Model: "m"}, adapter.Options{},
		func(ev adapter.Event) {
			if ev.Type == "error" && ev.Message != nil {
				out = append(out, ev.Message.ErrorMessage)
			}
		})
	return out
}

// TestEveryLayerCoversEveryWire: each layer's own table has an entry for
// every wire of the registry (impl/pi): the SSE renderer and adapter, the
// projection, the reference projection, the validator and the generators.
// A wire added to the registry without one of them fails here.
func TestEveryLayerCoversEveryWire(t *testing.T) {
	msgs := []pi.Appender{User("hello")}
	for _, w := range pi.Wires() {
		t.Run(w.Short, func(t *testing.T) {
			// adapter (impl/provider) and renderer (props/provider)
			parsed, err := adapter.ParseWire(w.Short)
			require.NoError(t, err)
			assert.Equal(t, adapter.Wire(w.API), parsed)
			assert.Contains(t, adapter.Wires, parsed)
			for _, e := range streamErrors(w.API, nil) {
				assert.NotContains(t, e, "unknown wire", "adapter")
			}
			sc := provider.GenScenario(parsed).Example(1)
			sc.Transport = provider.Transport{}
			if rd, err := provider.Render(sc); assert.NoError(t, err, "renderer") {
				assert.Empty(t, streamErrors(w.API, rd.Body), "the adapter rejects the renderer's clean stream")
			}

			// projection (impl/replay), reference (model/replay), validator (model/wire)
			assert.Contains(t, impl.Wires, w.Short)
			got, err := impl.Project(msgs, impl.Target{Wire: w.Short}, impl.Options{})
			assert.NoError(t, err, "projection")
			want, err := model.Project(msgs, model.Target{Wire: w.Short}, nil)
			assert.NoError(t, err, "reference projection")
			assert.Equal(t, string(want), string(got))
			assert.Contains(t, wire.Wires, w.Short)
			if err := wire.Validate(w.Short, []byte(`{}`), wire.Options{}); err != nil {
				assert.NotContains(t, err.Error(), "unknown wire", "validator")
			}
			if got != nil {
				assert.NoError(t, wire.Validate(w.Short, got, wire.Options{}), "validator")
			}

			// generators (props/replay)
			api, err := APIOf(w.Short)
			assert.NoError(t, err, "generator")
			assert.Equal(t, w.API, api)
		})
	}
}

// TestUnknownWireIsAnErrorEverywhere: no layer maps a name it does not
// know onto some default wire.
func TestUnknownWireIsAnErrorEverywhere(t *testing.T) {
	const bad = "gemini-2"
	msgs := []pi.Appender{User("hello")}
	_, err := adapter.ParseWire(bad)
	assert.ErrorContains(t, err, "unknown wire")
	assert.Equal(t, []string{fmt.Sprintf("provider: unknown wire %q", bad)}, streamErrors(bad, nil))
	_, err = provider.Render(provider.Scenario{Wire: bad})
	assert.ErrorContains(t, err, "unknown wire")
	_, err = impl.Project(msgs, impl.Target{Wire: bad}, impl.Options{})
	assert.ErrorContains(t, err, "unknown wire")
	_, err = model.Project(msgs, model.Target{Wire: bad}, nil)
	assert.ErrorContains(t, err, "unknown wire")
	assert.ErrorContains(t, wire.Validate(bad, []byte(`{}`), wire.Options{}), "unknown wire")
	_, err = APIOf(bad)
	assert.ErrorContains(t, err, "unknown wire")
	// the api names are not the replay layers' names
	for _, w := range pi.Wires() {
		if w.API != w.Short {
			_, err = impl.Project(msgs, impl.Target{Wire: w.API}, impl.Options{})
			assert.True(t, err != nil && strings.Contains(err.Error(), "unknown wire"), w.API)
		}
	}
}
