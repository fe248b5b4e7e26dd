package resolvers

import (
	"context"

	"github.com/instantstart/instantstart/engine/podlogs"
	"github.com/instantstart/instantstart/graph/model"
)

// A job's and an endpoint's logs are one stream shape (package podlogs):
// these read their arguments the same way and write their chunks alike.

// logLinesRequest is the request of a one-off read (jobLogLines,
// endpointLogLines): tail 1-10000, default 500.
func logLinesRequest(pod *string, tail *int, since *string) (podlogs.Request, error) {
	req := podlogs.Request{Pod: deref(pod), Tail: 500, Since: deref(since)}
	if tail != nil {
		n, err := given("tail", tail, 1, podlogs.MaxTail)
		if err != nil {
			return req, err
		}
		req.Tail = n
	}
	return req, nil
}

// logsRequest is the request of a subscription (jobLogs, endpointLogs):
// tail default 200, 0 for only what comes next; follow by default.
func logsRequest(pod *string, tail *int, since *string, follow *bool) podlogs.Request {
	req := podlogs.Request{Pod: deref(pod), Tail: 200, Since: deref(since), Follow: true}
	if tail != nil {
		// tail 0 asks for no earlier line, only what comes next.
		req.Tail, req.FromEnd = *tail, *tail == 0
	}
	if follow != nil {
		req.Follow = *follow
	}
	return req
}

// streamLogs writes a log stream's chunks to the subscriber.
func streamLogs(ctx context.Context, in <-chan podlogs.Chunk) <-chan *model.JobLogChunk {
	out := make(chan *model.JobLogChunk, 1)
	goStream(ctx, func() {
		defer close(out)
		defer flush(ctx)
		// Each chunk is this subscriber's own (its cursor is), so it is
		// written as it comes, not held for a shared render.
		for c := range in {
			if !deliver(ctx, out, mapLogChunk(c), nil) {
				return
			}
			flush(ctx)
		}
	})
	return out
}

func mapLogChunk(c podlogs.Chunk) *model.JobLogChunk {
	out := &model.JobLogChunk{Cursor: c.Cursor, Lines: make([]*model.JobLogLine, len(c.Lines))}
	for i, l := range c.Lines {
		out.Lines[i] = &model.JobLogLine{Pod: l.Pod, Time: l.Time, Text: l.Text}
	}
	if c.End != "" {
		end := model.JobLogEnd(c.End)
		out.End = &end
	}
	return out
}
