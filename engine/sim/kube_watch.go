package sim

import (
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"
)

// kubeWatchBuffer is how many events a watch may fall behind its API
// server. Past it the server ends the watch with an Expired error, and its
// client lists again and watches from there; the server never waits for a
// slow client.
const kubeWatchBuffer = 256

// kubeWatch is an open watch. ended is guarded by its server's watchMu,
// and so are sends on ch; the other fields do not change once it is
// registered.
type kubeWatch struct {
	server  *kubeServer
	res, ns string
	filter  kubeFilter
	typed   bool
	ch      chan watch.Event
	ended   bool
}

var _ watch.Interface = (*kubeWatch)(nil)

func (kw *kubeWatch) ResultChan() <-chan watch.Event { return kw.ch }

// Stop ends the watch and closes its channel.
func (kw *kubeWatch) Stop() {
	kw.server.watchMu.Lock()
	defer kw.server.watchMu.Unlock()
	kw.server.endWatch(kw)
}

// endWatch ends kw; the caller holds watchMu.
func (srv *kubeServer) endWatch(kw *kubeWatch) {
	if kw.ended {
		return
	}
	kw.ended = true
	delete(srv.watches, kw)
	close(kw.ch)
}

// endWatches ends every watch of the API server, as when it goes away.
func (srv *kubeServer) endWatches() {
	srv.watchMu.Lock()
	defer srv.watchMu.Unlock()
	for kw := range srv.watches {
		srv.endWatch(kw)
	}
}

// startWatch opens a watch. Without a resourceVersion (or with "0") it
// starts with an ADDED event for each object that matches, as an API
// server does; with one, with those changed since, as this API keeps no
// history of deletions.
func (srv *kubeServer) startWatch(a k8stesting.WatchActionImpl, typed bool) (*kubeWatch, error) {
	r := newKubeReq(a, typed)
	if _, err := r.kind(); err != nil {
		return nil, err
	}
	f, err := newKubeFilter(a.ListOptions)
	if err != nil {
		return nil, err
	}
	var from uint64
	if rv := a.ListOptions.ResourceVersion; rv != "" && rv != "0" {
		if from, err = strconv.ParseUint(rv, 10, 64); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid resourceVersion %q", rv))
		}
	}
	var kw *kubeWatch
	err = srv.call(r.op(), func(s *kubeSession) error {
		kw = &kubeWatch{server: s.server, res: r.res, ns: r.ns, filter: f, typed: typed}
		// Register once the request's own changes are published, so that
		// the initial events already show them.
		s.onPublished = append(s.onPublished, func() { s.register(kw, from) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return kw, nil
}

// register adds kw to the server with its initial events: the objects that
// match and changed after version from.
func (s *kubeSession) register(kw *kubeWatch, from uint64) {
	objs, err := s.list(kw.res, kw.ns)
	var initial []*unstructured.Unstructured
	for _, obj := range objs {
		rv, _ := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
		if rv > from && kw.filter.matches(obj) {
			initial = append(initial, obj)
		}
	}
	kw.ch = make(chan watch.Event, len(initial)+kubeWatchBuffer+1)
	kw.server.watchMu.Lock()
	defer kw.server.watchMu.Unlock()
	kw.server.watches[kw] = struct{}{}
	if err != nil {
		kw.fail(err)
		return
	}
	for _, obj := range initial {
		kw.send(watch.Added, obj)
	}
}

// publish tells the watches of a request's changes; the caller holds the
// world lock, so changes reach watches in the order they were made.
func (srv *kubeServer) publish(events []kubeEvent) {
	if len(events) == 0 {
		return
	}
	srv.watchMu.Lock()
	defer srv.watchMu.Unlock()
	for kw := range srv.watches {
		for _, ev := range events {
			kw.tell(ev)
		}
	}
}

// tell sends the event a change is for kw: an object that starts or stops
// matching its selectors is ADDED or DELETED, as an API server reports it.
func (kw *kubeWatch) tell(ev kubeEvent) {
	if kw.ended || ev.res != kw.res || (kw.ns != "" && ev.obj.GetNamespace() != kw.ns) {
		return
	}
	was := ev.old != nil && kw.filter.matches(ev.old)
	is := !ev.deleted && kw.filter.matches(ev.obj)
	switch {
	case was && is:
		kw.send(watch.Modified, ev.obj)
	case is:
		kw.send(watch.Added, ev.obj)
	case was:
		kw.send(watch.Deleted, ev.obj)
	}
}

// send queues an event without blocking; a watch that has fallen
// kubeWatchBuffer events behind gets an Expired error instead, in the slot
// kept for it, and ends. The caller holds watchMu.
func (kw *kubeWatch) send(typ watch.EventType, obj *unstructured.Unstructured) {
	if kw.ended {
		return
	}
	if len(kw.ch) >= cap(kw.ch)-1 {
		kw.fail(apierrors.NewResourceExpired("the watch fell too far behind; list again and watch from the list's resourceVersion"))
		return
	}
	out, err := kubeOutput(obj, kw.typed)
	if err != nil {
		kw.fail(err)
		return
	}
	kw.ch <- watch.Event{Type: typ, Object: out}
}

// fail sends err as the last event and ends the watch. The caller holds
// watchMu.
func (kw *kubeWatch) fail(err error) {
	status := apierrors.NewInternalError(err).ErrStatus
	if se := apierrors.APIStatus(nil); errors.As(err, &se) {
		status = se.Status()
	}
	kw.ch <- watch.Event{Type: watch.Error, Object: &status}
	kw.server.endWatch(kw)
}
