package resolvers

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/graph/model"
)

// mapOperation turns a stored operation into its GraphQL form.
func mapOperation(op *ops.Operation) *model.Operation {
	if op == nil {
		return nil
	}
	out := &model.Operation{
		ID:              op.ID,
		Kind:            op.Kind,
		Target:          mapRef(op.Target),
		ClusterID:       optional(op.ClusterID),
		RequestedBy:     op.RequestedBy,
		IdempotencyKey:  optional(op.IdempotencyKey),
		Status:          model.OperationStatus(op.Status),
		Noop:            op.Noop,
		StatusQuery:     op.StatusQuery,
		Phases:          make([]*model.Phase, 0, len(op.Phases)),
		Error:           mapOperationError(op.Error),
		CancelRequested: op.CancelRequested,
		CreatedAt:       op.CreatedAt,
		UpdatedAt:       op.UpdatedAt,
		StartedAt:       op.StartedAt,
		FinishedAt:      op.FinishedAt,
	}
	for _, p := range op.Phases {
		out.Phases = append(out.Phases, mapPhase(p))
	}
	return out
}

func mapPhase(p *ops.Phase) *model.Phase {
	out := &model.Phase{
		Name:       p.Name,
		Title:      p.Title,
		DependsOn:  append([]string{}, p.DependsOn...),
		Status:     model.PhaseStatus(p.Status),
		Attempt:    p.Attempt,
		Message:    optional(p.Message),
		Error:      mapOperationError(p.Error),
		StartedAt:  p.StartedAt,
		FinishedAt: p.FinishedAt,
	}
	fields := p.OutputFields()
	out.Outputs = make([]*model.PhaseOutput, 0, len(fields))
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		out.Outputs = append(out.Outputs, &model.PhaseOutput{Key: k, Value: fields[k]})
	}
	return out
}

func mapOperationError(e *ops.Error) *model.OperationError {
	if e == nil {
		return nil
	}
	return &model.OperationError{Code: e.Code, Message: e.Message, Retryable: e.Retryable, UpstreamCode: optional(e.UpstreamCode)}
}

// mapRef shows an operation's target. Targets name their kind in upper
// case already (cluster.TargetKind is "CLUSTER").
func mapRef(r ops.Ref) *model.ResourceRef {
	return &model.ResourceRef{Kind: schemaKind(r.Kind), ID: r.ID, Name: optional(r.Name)}
}

// schemaKind is the schema's name of an engine kind: upper case, as in
// "cluster" (a store record kind) -> "CLUSTER".
func schemaKind(kind string) string { return strings.ToUpper(kind) }

// storeKind is the store's record kind of a kind a client gave, as in
// "CLUSTER" -> "cluster".
func storeKind(kind string) string { return strings.ToLower(kind) }

// mapOperationFilter turns the GraphQL filter into the runner's.
func mapOperationFilter(f *model.OperationFilter) ops.Filter {
	if f == nil {
		return ops.Filter{}
	}
	out := ops.Filter{Kinds: f.Kinds, TargetKind: strings.ToUpper(deref(f.TargetKind)), TargetID: deref(f.TargetID), ClusterID: deref(f.ClusterID)}
	for _, s := range f.Statuses {
		out.Statuses = append(out.Statuses, ops.Status(s))
	}
	return out
}

// listOperations answers a page of the operations f selects, newest first.
func (r *Resolver) listOperations(ctx context.Context, f ops.Filter, first *int, after *string) (*model.OperationConnection, error) {
	c, err := readConnection(ctx, r, first, after, func(req store.PageRequest) (*ops.Page, error) { return r.Ops.List(f, req) },
		func(op *ops.Operation) string { return op.ID })
	if err != nil {
		return nil, err
	}
	out := &model.OperationConnection{EventCursor: c.eventCursor, PageInfo: c.pageInfo, TotalCount: c.page.Total,
		Edges: make([]*model.OperationEdge, 0, len(c.page.Items))}
	for _, op := range c.page.Items {
		out.Edges = append(out.Edges, &model.OperationEdge{Cursor: op.ID, Node: mapOperation(op)})
	}
	return out, nil
}
