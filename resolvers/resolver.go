// Package resolvers adapts the GraphQL schema to the engine: each resolver
// checks its arguments, calls one engine method and maps the result. No AWS
// or Kubernetes call is made here.
package resolvers

import (
	"log/slog"

	"github.com/instantstart/instantstart/engine/auth"
	"github.com/instantstart/instantstart/engine/cluster"
	"github.com/instantstart/instantstart/engine/compute"
	"github.com/instantstart/instantstart/engine/features"
	"github.com/instantstart/instantstart/engine/inference"
	"github.com/instantstart/instantstart/engine/models"
	"github.com/instantstart/instantstart/engine/ops"
	"github.com/instantstart/instantstart/engine/preflight"
	"github.com/instantstart/instantstart/engine/storage"
	"github.com/instantstart/instantstart/engine/store"
	"github.com/instantstart/instantstart/engine/training"
)

// Resolver holds the engine services the resolvers call.
type Resolver struct {
	Version   string
	Store     *store.Store
	Ops       *ops.Runner
	Clusters  *cluster.Service
	Compute   *compute.Service
	Features  *features.Service
	Storage   *storage.Service
	Models    *models.Service
	Training  *training.Service
	Inference *inference.Service
	Auth      *auth.Service
	Preflight *preflight.Service
	// Log receives what a client must not see (the causes of INTERNAL
	// errors, subscriptions that stop early). Nil discards it.
	Log *slog.Logger
}

func (r *Resolver) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}
