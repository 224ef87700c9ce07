package wire

import "strings"

func validateResponses(body map[string]any, opts Options) error {
	const w = OpenAIResponses
	if _, ok := asStr(body["input"]); ok {
		return nil
	}
	items, ok := asArr(body["input"])
	if !ok {
		return reject(w, "input.type", "Invalid type for 'input': expected one of a string or array of input items.")
	}
	called := map[string]bool{}   // call_id → seen function_call
	answered := map[string]bool{} // call_id → seen function_call_output
	var callOrder []string
	for i, ri := range items {
		it, ok := asObj(ri)
		if !ok {
			return reject(w, "item.type", "Invalid type for 'input[%d]': expected an object.", i)
		}
		typ := str(it, "type")
		if typ == "" && it["role"] != nil {
			typ = "message"
		}
		switch typ {
		case "message":
			if err := responsesMessage(i, it, opts); err != nil {
				return err
			}
		case "function_call":
			id := str(it, "call_id")
			if id == "" || str(it, "name") == "" {
				return reject(w, "function_call.fields", "Missing required parameter: 'input[%d].call_id'.", i)
			}
			if itemID, present := it["id"]; present {
				if s, _ := asStr(itemID); !strings.HasPrefix(s, "fc") {
					return reject(w, "function_call.id", "Invalid 'input[%d].id': '%s'. Expected an ID that begins with 'fc'.", i, s)
				}
			}
			args, ok := asStr(it["arguments"])
			if !ok {
				return reject(w, "function_call.arguments", "Invalid type for 'input[%d].arguments': expected a string, but got %s instead.", i, jsType(it["arguments"]))
			}
			if !validJSONText(args) {
				return strict(w, "function_call.arguments_json", "input[%d].arguments is not JSON text", i)
			}
			if called[id] {
				return strict(w, "function_call.unique", "input[%d]: call_id %s is used by more than one function_call", i, id)
			}
			called[id] = true
			callOrder = append(callOrder, id)
		case "function_call_output":
			id := str(it, "call_id")
			if !called[id] {
				return reject(w, "output.orphan", "No tool call found for function call output with call_id %s.", id)
			}
			if answered[id] {
				return strict(w, "output.duplicate", "input[%d]: call_id %s is answered by more than one function_call_output", i, id)
			}
			answered[id] = true
			if err := responsesOutput(i, it["output"], opts); err != nil {
				return err
			}
		case "reasoning":
			if _, ok := asArr(it["summary"]); !ok {
				return reject(w, "reasoning.summary", "Input[%d] missing required field `summary`", i)
			}
			next := ""
			if i+1 < len(items) {
				if n, ok := asObj(items[i+1]); ok {
					next = str(n, "type")
					if next == "" && str(n, "role") == "assistant" {
						next = "message"
					}
					if next == "message" && str(n, "role") != "assistant" {
						next = ""
					}
				}
			}
			if next != "message" && next != "function_call" && next != "reasoning" {
				return reject(w, "reasoning.following", "Item '%s' of type 'reasoning' was provided without its required following item.", str(it, "id"))
			}
		default:
			return reject(w, "item.kind", "Invalid value: '%s'. Supported values are: 'message', 'function_call', 'function_call_output', 'reasoning' and others.", typ)
		}
	}
	for _, id := range callOrder {
		if !answered[id] {
			return reject(w, "function_call.unanswered", "No tool output found for function call %s.", id)
		}
	}
	return nil
}

func responsesMessage(i int, it map[string]any, opts Options) error {
	const w = OpenAIResponses
	role := str(it, "role")
	switch role {
	case "user", "assistant", "system", "developer":
	default:
		return reject(w, "role", "Invalid value: '%s'. Supported values are: 'assistant', 'system', 'developer', and 'user'.", role)
	}
	if _, ok := asStr(it["content"]); ok {
		return nil
	}
	parts, ok := asArr(it["content"])
	if !ok {
		return reject(w, "content.type", "Invalid type for 'input[%d].content': expected one of a string or array of objects.", i)
	}
	for k, rp := range parts {
		p, _ := asObj(rp)
		t := str(p, "type")
		switch {
		case t == "input_text" && role != "assistant", t == "output_text" && role == "assistant":
			if _, ok := asStr(p["text"]); !ok {
				return reject(w, "text.type", "Missing required parameter: 'input[%d].content[%d].text'.", i, k)
			}
		case t == "input_image" && role == "user":
			if str(p, "image_url") == "" {
				return reject(w, "image.url", "Missing required parameter: 'input[%d].content[%d].image_url'.", i, k)
			}
			if !opts.Vision {
				return strict(w, "image.vision", "input[%d].content[%d]: image input sent to a model that does not accept images", i, k)
			}
		default:
			return reject(w, "part.type", "Invalid value: '%s'. Supported values are: 'input_text', 'input_image', 'input_file' (user) or 'output_text', 'refusal' (assistant).", t)
		}
	}
	return nil
}

func responsesOutput(i int, v any, opts Options) error {
	const w = OpenAIResponses
	if _, ok := asStr(v); ok {
		return nil
	}
	parts, ok := asArr(v)
	if !ok {
		return reject(w, "output.type", "Invalid type for 'input[%d].output': expected one of a string or array of objects.", i)
	}
	for k, rp := range parts {
		p, _ := asObj(rp)
		switch str(p, "type") {
		case "input_text":
			if _, ok := asStr(p["text"]); !ok {
				return reject(w, "text.type", "Missing required parameter: 'input[%d].output[%d].text'.", i, k)
			}
		case "input_image":
			if str(p, "image_url") == "" {
				return reject(w, "image.url", "Missing required parameter: 'input[%d].output[%d].image_url'.", i, k)
			}
			if !opts.Vision {
				return strict(w, "image.vision", "input[%d].output[%d]: image input sent to a model that does not accept images", i, k)
			}
		default:
			return reject(w, "part.type", "Invalid value: '%s'. Supported values are: 'input_text', 'input_image', and 'input_file'.", str(p, "type"))
		}
	}
	return nil
}
