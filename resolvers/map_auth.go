package resolvers

import (
	"encoding/json"
	"time"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/graph/model"
)

func mapToken(t *auth.Token) *model.Token {
	return &model.Token{
		ID: t.ID, Name: t.Name, Role: model.Role(t.Role), CreatedAt: t.CreatedAt, CreatedBy: t.CreatedBy,
		LastUsedAt: t.LastUsedAt, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt, Active: t.Active(time.Now()),
	}
}

func mapAuditPage(p *auth.AuditPage) *model.AuditRecordConnection {
	out := &model.AuditRecordConnection{TotalCount: p.TotalCount, PageInfo: &model.PageInfo{HasNextPage: p.HasNext}, Edges: []*model.AuditRecordEdge{}}
	for _, rec := range p.Items {
		var args any
		if len(rec.Arguments) > 0 {
			_ = json.Unmarshal(rec.Arguments, &args)
		}
		out.Edges = append(out.Edges, &model.AuditRecordEdge{Cursor: rec.ID, Node: &model.AuditRecord{
			ID: rec.ID, Time: rec.Time, TokenName: rec.TokenName, Role: model.Role(rec.Role), Mutation: rec.Mutation,
			Arguments: args, OperationID: optional(rec.OperationID), Outcome: rec.Outcome, Message: optional(rec.Message),
		}})
	}
	if n := len(out.Edges); n > 0 {
		out.PageInfo.EndCursor = &out.Edges[n-1].Cursor
	}
	return out
}
