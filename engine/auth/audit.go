package auth

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/instantstart/instantstart/engine/errs"
	"github.com/instantstart/instantstart/engine/store"
)

// AuditRecord says who ran which mutation, when, with what arguments and
// how it ended.
type AuditRecord struct {
	ID        string    `json:"id"`
	Time      time.Time `json:"time"`
	TokenID   string    `json:"tokenId"`
	TokenName string    `json:"tokenName"`
	Role      Role      `json:"role"`
	Mutation  string    `json:"mutation"`
	// Arguments are the mutation's arguments with secrets redacted.
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	OperationID string          `json:"operationId,omitempty"`
	// Outcome is "OK" or the code of the error the mutation returned.
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
}

// AuditFilter selects audit records; an empty field matches everything.
type AuditFilter struct {
	TokenName, Mutation, Outcome string
}

func (f AuditFilter) match(r *AuditRecord) bool {
	return (f.TokenName == "" || f.TokenName == r.TokenName) &&
		(f.Mutation == "" || f.Mutation == r.Mutation) &&
		(f.Outcome == "" || f.Outcome == r.Outcome)
}

// AuditPage is one page of the audit log.
type AuditPage struct {
	Items []*AuditRecord
	// TotalCount is the number of records matching the filter, on all
	// pages, when the request asked for it.
	TotalCount int
	HasNext    bool
}

// What one audit record keeps of a request, whatever the request sent: an
// audit record costs the store a few KB, not the size of the request.
const (
	// MaxAuditArguments bounds the arguments' JSON; longer arguments are
	// kept as a TruncatedArguments.
	MaxAuditArguments = 4 << 10
	// MaxAuditMessage bounds the outcome's message.
	MaxAuditMessage = 1 << 10
)

// TruncatedArguments stands in an audit record for arguments longer than
// MaxAuditArguments: their size and how they begin.
type TruncatedArguments struct {
	Truncated bool `json:"truncated"`
	// Size is the arguments' JSON length in bytes.
	Size int `json:"size"`
	// Head is the start of the arguments' JSON.
	Head string `json:"head,omitempty"`
}

// boundArguments returns args when they fit in MaxAuditArguments, else a
// TruncatedArguments holding their size and, unless headless, their start.
func boundArguments(args json.RawMessage, headless bool) json.RawMessage {
	if len(args) <= MaxAuditArguments && !headless {
		return args
	}
	t := TruncatedArguments{Truncated: true, Size: len(args)}
	if !headless {
		t.Head = strings.ToValidUTF8(string(args[:MaxAuditArguments-256]), "")
	}
	out, err := json.Marshal(t)
	if err != nil { // a struct of a bool, an int and a valid string
		return nil
	}
	return out
}

// Page sizes for AuditLog.
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 500
)

// Record appends rec to the audit log. It sets ID (a ULID) and Time when
// they are empty and redacts Arguments again, whatever the caller did, and
// any secret-looking word of Message (an error may quote its input). It
// keeps at most MaxAuditArguments of the arguments and MaxAuditMessage of
// the message; a request refused for its credential (UNAUTHENTICATED,
// FORBIDDEN) keeps only the size of its arguments.
func (s *Service) Record(rec AuditRecord) error {
	if rec.ID == "" {
		rec.ID = s.ids.NewID()
	}
	key, err := auditKey(rec.ID)
	if err != nil {
		return err
	}
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	if refused := rec.Outcome == string(errs.Unauthenticated) || rec.Outcome == string(errs.Forbidden); refused && len(rec.Arguments) > 0 {
		rec.Arguments = boundArguments(rec.Arguments, true)
	} else {
		rec.Arguments = boundArguments(RedactJSON(rec.Arguments), false)
	}
	rec.Message = redactText(rec.Message)
	if len(rec.Message) > MaxAuditMessage {
		rec.Message = strings.ToValidUTF8(rec.Message[:MaxAuditMessage], "") + "..."
	}
	return s.st.Update(func(tx *store.Tx) error { return putJSON(tx, indexAudit, key, rec) })
}

// AuditLog returns up to req.First records (DefaultAuditPage when 0)
// matching f, newest first, starting after the record whose id is req.After
// ("" = from the newest), and the number of all matching records when
// req.Count asks for it. It walks the log from the cursor: a page costs the
// records it passes, not the whole log.
func (s *Service) AuditLog(f AuditFilter, req store.PageRequest) (*AuditPage, error) {
	switch {
	case req.First == 0:
		req.First = DefaultAuditPage
	case req.First < 0 || req.First > MaxAuditPage:
		return nil, errs.Field("first", "first is %d; ask for 1 to %d records", req.First, MaxAuditPage)
	}
	if req.After != "" {
		k, err := auditKey(req.After)
		if err != nil {
			return nil, errs.Field("after", "after %q is not an audit record id: pass the id of the last record you received, or omit it", req.After)
		}
		req.After = k
	}
	var match func(*AuditRecord) bool
	if f != (AuditFilter{}) {
		match = f.match
	}
	var page *store.Page[AuditRecord]
	err := s.st.View(func(tx *store.Tx) (err error) {
		page, err = store.ReadPage(tx, store.Scan{Kind: "audit record", Index: indexAudit, Inline: true}, req, match)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &AuditPage{Items: page.Items, TotalCount: page.Total, HasNext: page.HasNext}, nil
}

// crockford is the ULID alphabet, in ascending byte order.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// auditKey maps a ULID to a key whose ascending order is the ULIDs'
// descending order, so that a forward index scan reads newest first.
func auditKey(id string) (string, error) {
	u, err := ulid.ParseStrict(id)
	if err != nil {
		return "", errs.Field("id", "audit record id %q is not a ULID", id)
	}
	canon := u.String()
	var b strings.Builder
	for i := 0; i < len(canon); i++ {
		b.WriteByte(crockford[len(crockford)-1-strings.IndexByte(crockford, canon[i])])
	}
	return b.String(), nil
}
