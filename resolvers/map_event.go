package resolvers

import (
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

type eventViewKey struct{}

// mapEvent turns an entry of the event log into its GraphQL form, once per
// event: every subscriber receives the same value, which no one changes.
// The payload stays JSON, redacted of secrets; the Event.operation and
// Event.cluster fields decode it when asked for.
func mapEvent(ev *store.Event) *model.Event {
	return ev.Shared(eventViewKey{}, func() any { return newEvent(ev) }).(*model.Event)
}

func newEvent(ev *store.Event) *model.Event {
	out := &model.Event{
		Cursor: store.Cursor(ev.Seq),
		Time:   ev.Time,
		Action: model.EventAction(ev.Action),
		Target: &model.ResourceRef{Kind: schemaKind(ev.Kind), ID: ev.ID, Name: optional(payloadName(ev.Payload))},
	}
	if len(ev.Payload) > 0 {
		// Records may carry requests with secrets in them (an operation's
		// input); the raw payload a client sees never does.
		out.Payload = auth.RedactJSON(ev.Payload)
	}
	return out
}

// resubscribeKind is the target kind of the RESUBSCRIBE event, which is about
// the subscription itself rather than a resource.
const resubscribeKind = "SUBSCRIPTION"

// resubscribeEvent tells a client that fell behind where to resume.
func resubscribeEvent(resumeAfter uint64, now time.Time) *model.Event {
	return &model.Event{
		Cursor: store.Cursor(resumeAfter),
		Time:   now.UTC(),
		Action: model.EventActionResubscribe,
		Target: &model.ResourceRef{Kind: resubscribeKind, ID: "events"},
	}
}

// payloadName reads the top-level name of a record, if it has one.
func payloadName(raw json.RawMessage) string {
	var v struct {
		Name string `json:"name"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v.Name
}

// decodePayload decodes the payload of ev into v when ev concerns a resource
// of kind (an engine record kind). It reports whether it did.
func decodePayload(ev *model.Event, kind string, v any) (bool, error) {
	if ev.Target == nil || ev.Target.Kind != schemaKind(kind) {
		return false, nil
	}
	raw, ok := ev.Payload.(json.RawMessage)
	if !ok || len(raw) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, err
	}
	return true, nil
}
