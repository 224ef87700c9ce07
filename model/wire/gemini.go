package wire

import "strings"

// validateGemini checks a generateContent body in three passes: each turn
// and its parts on their own, then how call and response turns pair up, then
// (for gemini-3 models) the thought signatures of the current turn.
func validateGemini(body map[string]any, opts Options) error {
	raw, ok := asArr(body["contents"])
	if !ok || len(raw) == 0 {
		return reject(Gemini, "contents.required", "* GenerateContentRequest.contents: contents is not specified")
	}
	turns := make([]geminiTurn, len(raw))
	for i, rc := range raw {
		t, err := geminiTurnOf(i, rc, opts)
		if err != nil {
			return err
		}
		turns[i] = t
	}
	if err := geminiPairing(turns); err != nil {
		return err
	}
	if strings.HasPrefix(opts.Model, "gemini-3") {
		return geminiSignatures(turns)
	}
	return nil
}

// geminiTurn is what the pairing and signature checks need of one content.
type geminiTurn struct {
	role      string
	calls     int
	responses int
	other     int // parts that are neither call nor response
	firstCall map[string]any
	callNames []string
	respNames []string
}

// geminiTurnOf validates contents[i] and its parts.
func geminiTurnOf(i int, rc any, opts Options) (geminiTurn, error) {
	const w = Gemini
	c, ok := asObj(rc)
	if !ok {
		return geminiTurn{}, reject(w, "content.type", "* GenerateContentRequest.contents[%d]: Invalid value (object expected)", i)
	}
	role := str(c, "role")
	if role != "user" && role != "model" {
		return geminiTurn{}, reject(w, "role", "Please use a valid role: user, model.")
	}
	parts, _ := asArr(c["parts"])
	if len(parts) == 0 {
		return geminiTurn{}, reject(w, "parts.empty", "* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
	}
	t := geminiTurn{role: role}
	for k, rp := range parts {
		if err := t.addPart(i, k, rp, opts); err != nil {
			return geminiTurn{}, err
		}
	}
	return t, nil
}

// addPart validates contents[i].parts[k] and counts it into the turn.
func (t *geminiTurn) addPart(i, k int, rp any, opts Options) error {
	const w = Gemini
	p, ok := asObj(rp)
	if !ok {
		return reject(w, "part.type", "* GenerateContentRequest.contents[%d].parts[%d]: Invalid value (object expected)", i, k)
	}
	switch {
	case p["functionCall"] != nil:
		if t.role != "model" {
			return strict(w, "functionCall.role", "contents[%d].parts[%d]: functionCall parts belong to model turns", i, k)
		}
		fc, _ := asObj(p["functionCall"])
		if str(fc, "name") == "" {
			return reject(w, "functionCall.name", "* GenerateContentRequest.contents[%d].parts[%d].function_call.name: Name cannot be empty.", i, k)
		}
		if t.firstCall == nil {
			t.firstCall = p
		}
		t.calls++
		t.callNames = append(t.callNames, str(fc, "name"))
	case p["functionResponse"] != nil:
		if t.role != "user" {
			return strict(w, "functionResponse.role", "contents[%d].parts[%d]: functionResponse parts belong to user turns", i, k)
		}
		fr, _ := asObj(p["functionResponse"])
		if str(fr, "name") == "" {
			return reject(w, "functionResponse.name", "* GenerateContentRequest.contents[%d].parts[%d].function_response.name: Name cannot be empty.", i, k)
		}
		if _, ok := asObj(fr["response"]); !ok {
			return reject(w, "functionResponse.response", "* GenerateContentRequest.contents[%d].parts[%d].function_response.response: Invalid value (object expected)", i, k)
		}
		if nested, ok := asArr(fr["parts"]); ok {
			for _, rn := range nested {
				if err := geminiDataPart(i, k, rn, opts); err != nil {
					return err
				}
			}
		}
		t.responses++
		t.respNames = append(t.respNames, str(fr, "name"))
	case p["inlineData"] != nil:
		if err := geminiDataPart(i, k, p, opts); err != nil {
			return err
		}
		t.other++
	default:
		if _, ok := asStr(p["text"]); !ok {
			return reject(w, "part.data", "* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, k)
		}
		t.other++
	}
	return nil
}

// geminiPairing checks that every function call turn follows a user turn and
// is answered, name for name, by the next turn, and that every function
// response turn follows a call turn.
func geminiPairing(turns []geminiTurn) error {
	const w = Gemini
	for i, t := range turns {
		if t.calls > 0 {
			if i == 0 || turns[i-1].role != "user" {
				return reject(w, "call.position", "Please ensure that function call turn comes immediately after a user turn or after a function response turn.")
			}
			if i+1 >= len(turns) || turns[i+1].responses != t.calls {
				return reject(w, "response.count", "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.")
			}
			if !sameNames(t.callNames, turns[i+1].respNames) {
				return strict(w, "response.names", "contents[%d]: function responses %v do not answer function calls %v", i+1, turns[i+1].respNames, t.callNames)
			}
		}
		if t.responses > 0 {
			if i == 0 || turns[i-1].calls == 0 {
				return reject(w, "response.position", "Please ensure that function response turn comes immediately after a function call turn.")
			}
		}
	}
	return nil
}

// geminiSignatures checks the gemini-3 rule: the current turn starts after
// the last user turn that is a prompt rather than function responses; each
// step in it must be signed.
func geminiSignatures(turns []geminiTurn) error {
	start := 0
	for i, t := range turns {
		if t.role == "user" && t.responses == 0 {
			start = i + 1
		}
	}
	for i := start; i < len(turns); i++ {
		t := turns[i]
		if t.firstCall == nil {
			continue
		}
		if sig, _ := asStr(t.firstCall["thoughtSignature"]); sig == "" {
			fc, _ := asObj(t.firstCall["functionCall"])
			return reject(Gemini, "thought_signature", "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.", str(fc, "name"), i+1)
		}
	}
	return nil
}

func geminiDataPart(i, k int, rp any, opts Options) error {
	const w = Gemini
	p, _ := asObj(rp)
	d, _ := asObj(p["inlineData"])
	if d == nil || str(d, "mimeType") == "" || str(d, "data") == "" {
		return reject(w, "inlineData.fields", "* GenerateContentRequest.contents[%d].parts[%d].inline_data: mime_type and data are required", i, k)
	}
	if strings.HasPrefix(str(d, "mimeType"), "image/") && !opts.Vision {
		return strict(w, "image.vision", "contents[%d].parts[%d]: image input sent to a model that does not accept images", i, k)
	}
	return nil
}

// sameNames compares two name lists as multisets.
func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for _, s := range a {
		n[s]++
	}
	for _, s := range b {
		n[s]--
		if n[s] < 0 {
			return false
		}
	}
	return true
}
