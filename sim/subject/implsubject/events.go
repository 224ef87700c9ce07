package implsubject

import (
	"encoding/json"

	"github.com/frameproof/frameproof/impl/lane"
	"github.com/frameproof/frameproof/impl/pi"
)

// piEvent is a lane event in the shape pi's event bus delivers it
// (runtime/drive/response.ts, boundary.ts, reconcile.ts, lane.ts): its
// type, the recovery tag, and the members of its kind the simulator reads.
type piEvent struct {
	Type      lane.EventType `json:"type"`
	Lane      string         `json:"lane,omitempty"`
	Recovery  bool           `json:"recovery,omitempty"`
	Status    string         `json:"status,omitempty"`
	Property  string         `json:"property,omitempty"`
	Reason    string         `json:"reason,omitempty"`
	Error     *piError       `json:"error,omitempty"`
	FromTipID *string        `json:"fromTipId,omitempty"`
	TipID     *string        `json:"tipId,omitempty"`
	EndedAt   *float64       `json:"endedAt,omitempty"`
	StartedAt *float64       `json:"startedAt,omitempty"`
	// retry_scheduled, retry_start, retry_end
	Step         string   `json:"step,omitempty"`
	Attempt      int      `json:"attempt,omitempty"`
	MaxAttempts  int      `json:"maxAttempts,omitempty"`
	DelayMs      *float64 `json:"delayMs,omitempty"`
	NotBefore    *float64 `json:"notBefore,omitempty"`
	ErrorMessage string   `json:"errorMessage,omitempty"`
	Success      *bool    `json:"success,omitempty"`
	FinalError   *string  `json:"finalError,omitempty"`
	// operation_abort
	OperationID string          `json:"operationId,omitempty"`
	Steer       json.RawMessage `json:"steer,omitempty"`
	FollowUp    json.RawMessage `json:"followUp,omitempty"`
}

type piError struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details,omitempty"`
}

func raw(v pi.JSONValue) json.RawMessage {
	if v.IsUndefined() {
		return nil
	}
	return v.AppendJSON(nil)
}

// eventJSON renders ev as pi delivers it.
func eventJSON(ev lane.Event) json.RawMessage {
	e := piEvent{Type: ev.Type, Lane: ev.Lane, Recovery: ev.Recovery}
	switch ev.Type {
	case lane.EvRunEnd:
		e.Status, e.FromTipID, e.TipID, e.EndedAt = ev.Status, ev.FromTipID, ev.TipID, &ev.EndedAt
		if ev.Error != nil {
			e.Error = &piError{Code: ev.Error.Code, Message: ev.Error.Message, Details: raw(ev.Error.Details)}
		}
	case lane.EvConfigUpdate:
		e.Property = ev.Property
	case lane.EvCompactionStart:
		e.Reason, e.StartedAt = ev.Reason, &ev.StartedAt
	case lane.EvRetryScheduled:
		e.Step, e.Attempt, e.MaxAttempts, e.DelayMs, e.NotBefore, e.ErrorMessage = ev.TurnID, ev.Attempt, ev.MaxAttempts, &ev.DelayMs, &ev.NotBefore, ev.ErrorMessage
	case lane.EvRetryStart:
		e.Step, e.Attempt = ev.TurnID, ev.Attempt
	case lane.EvRetryEnd:
		e.Step, e.Attempt, e.Success, e.FinalError = ev.TurnID, ev.Attempt, &ev.Success, ev.FinalError
	case lane.EvOperationAbort:
		e.OperationID, e.Steer, e.FollowUp = ev.OperationID, raw(ev.Steer), raw(ev.FollowUp)
	}
	b, err := json.Marshal(e)
	if err != nil {
		// only a non-finite number fails; an event type no model event
		// has makes the run's event comparison show it
		b, _ = json.Marshal(map[string]string{"type": "unencodable " + string(ev.Type) + ": " + err.Error()})
	}
	return b
}
