// Package podlogs serves pods' live logs to many viewers at once. Every
// viewer of one container shares one upstream Kubernetes log stream and one
// bounded buffer of its recent lines; a viewer holds only its place in that
// buffer. A viewer resumes from the cursor of the last line it received
// with no gap and no duplicate, and one that falls too far behind is cut
// off with the cursor to resume from: the reader of the upstream never
// waits for a viewer. A workload's log (a job's, an endpoint's) merges its
// pods' logs into one stream with one cursor (Hub.Stream).
package podlogs

import (
	"context"
	"errors"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
)

// Key names the log of one container of one pod.
type Key struct {
	// Cluster is an opaque name the Opener understands (an EKS cluster).
	Cluster   string
	Namespace string
	Pod       string
	// Container is the container; empty means the pod's only or first one.
	Container string
}

// String returns cluster/namespace/pod, and /container when one is named.
func (k Key) String() string {
	s := k.Cluster + "/" + k.Namespace + "/" + k.Pod
	if k.Container != "" {
		s += "/" + k.Container
	}
	return s
}

// Opener opens the log of k with opts, as cloud.PodLogs.Stream does for
// the Kubernetes cluster named k.Cluster. The hub always asks for
// timestamps. A followed stream ends when the container ends or ctx is
// done; the hub closes what it opens.
type Opener func(ctx context.Context, k Key, opts *corev1.PodLogOptions) (io.ReadCloser, error)

// Line is one line of a log.
type Line struct {
	// Cursor is the line's place; Cursor.Time is the time Kubernetes
	// stamped it with.
	Cursor Cursor
	// Text is the line without its timestamp and newline, valid UTF-8, cut
	// to MaxLineBytes (then ending with a marker saying so).
	Text string
}

// MaxBatch is the most lines one Viewer.Next returns.
const MaxBatch = 1000

// SlowError is the error of a viewer that was cut off: it fell further
// behind the shared buffer than the hub allows, or its private catch-up
// read reached its bound. Subscribing again with Since set to Resume
// continues exactly after the last line the viewer received.
type SlowError struct {
	// Resume is the cursor of the last line the viewer received (or, if it
	// received none, the place just before the first line it was to get).
	Resume Cursor
}

func (e *SlowError) Error() string {
	return fmt.Sprintf("podlogs: the viewer fell behind the log and was cut off; subscribe again from cursor %s to continue", e.Resume)
}

// ErrClosed is returned by a viewer that was closed, or whose hub was.
var ErrClosed = errors.New("podlogs: the log viewer was closed")
