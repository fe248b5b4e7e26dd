// Package hyperpod holds the shapes every area of the engine shares: a
// cluster with its typed status (Cluster), an instance group as areas see
// it (GroupSpec, InstanceGroup), the cluster's shared bucket as pods mount
// it (Bucket), the names of the managed features (Feature) and the MLflow
// tracking server jobs report to.
//
// Each concept is declared here once. The area that keeps a record returns
// it in this shape, and an area that needs another's declares a small
// interface over these types; engine/app fills it in. The package imports
// no other package of the engine but errs, so every area can import it and
// no area need import another.
package hyperpod
