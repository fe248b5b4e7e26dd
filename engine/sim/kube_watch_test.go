package sim

import (
	"fmt"
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// next returns the event waiting on w. Changes reach watches before the
// request that made them returns, so there is nothing to wait for.
func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, open := <-w.ResultChan():
		return ev, open
	default:
		t.Fatal("no event")
		return watch.Event{}, false
	}
}

func noEvent(t *testing.T, w watch.Interface) {
	t.Helper()
	select {
	case ev := <-w.ResultChan():
		t.Errorf("unexpected event %s %v", ev.Type, ev.Object)
	default:
	}
}

func TestKubeWatchFollowsSelectors(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	cms := kc.Core.CoreV1().ConfigMaps("default")
	ok(cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old", Labels: map[string]string{"app": "a"}}}, metav1.CreateOptions{})).must(t)
	w := ok(cms.Watch(f.ctx, metav1.ListOptions{LabelSelector: "app=a"})).must(t)
	defer w.Stop()
	if ev, _ := nextEvent(t, w); ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != "old" {
		t.Errorf("initial event %s %v", ev.Type, ev.Object)
	}

	steps := []struct {
		name string
		do   func() error
		want watch.EventType // "" for none
	}{
		{"create a match", func() error {
			_, err := cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"app": "a"}}}, metav1.CreateOptions{})
			return err
		}, watch.Added},
		{"create another", func() error {
			_, err := cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Labels: map[string]string{"app": "b"}}}, metav1.CreateOptions{})
			return err
		}, ""},
		{"create elsewhere", func() error {
			_, err := kc.Core.CoreV1().ConfigMaps("kube-system").Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"app": "a"}}}, metav1.CreateOptions{})
			return err
		}, ""},
		{"change the match", func() error {
			_, err := cms.Patch(f.ctx, "cm", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
			return err
		}, watch.Modified},
		{"change nothing", func() error {
			_, err := cms.Patch(f.ctx, "cm", types.MergePatchType, []byte(`{"data":{"k":"v"}}`), metav1.PatchOptions{})
			return err
		}, ""},
		{"relabel away", func() error {
			_, err := cms.Patch(f.ctx, "cm", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"b"}}}`), metav1.PatchOptions{})
			return err
		}, watch.Deleted},
		{"relabel back", func() error {
			_, err := cms.Patch(f.ctx, "other", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"a"}}}`), metav1.PatchOptions{})
			return err
		}, watch.Added},
		{"delete the match", func() error { return cms.Delete(f.ctx, "other", metav1.DeleteOptions{}) }, watch.Deleted},
		{"delete another", func() error { return cms.Delete(f.ctx, "cm", metav1.DeleteOptions{}) }, ""},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if s.want == "" {
			noEvent(t, w)
			continue
		}
		if ev, _ := nextEvent(t, w); ev.Type != s.want {
			t.Errorf("%s: event %s, want %s", s.name, ev.Type, s.want)
		}
	}
	w.Stop()
	if _, open := nextEvent(t, w); open {
		t.Errorf("a stopped watch is open")
	}
}

func TestKubeWatchFromAVersion(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	jobs := kc.Dynamic.Resource(hyperPodJobs).Namespace("default")
	ok(jobs.Create(f.ctx, hyperPodJob("a"), metav1.CreateOptions{})).must(t)
	list := ok(jobs.List(f.ctx, metav1.ListOptions{})).must(t)
	ok(jobs.Create(f.ctx, hyperPodJob("b"), metav1.CreateOptions{})).must(t)
	w := ok(jobs.Watch(f.ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})).must(t)
	defer w.Stop()
	ev, _ := nextEvent(t, w)
	if u, isU := ev.Object.(*unstructured.Unstructured); ev.Type != watch.Added || !isU || u.GetName() != "b" {
		t.Errorf("event %s %v", ev.Type, ev.Object)
	}
	noEvent(t, w)
}

func TestKubeSlowWatchEnds(t *testing.T) {
	f, kc := kubeAPIFixture(t)
	cms := kc.Core.CoreV1().ConfigMaps("default")
	w := ok(cms.Watch(f.ctx, metav1.ListOptions{})).must(t)
	for i := range kubeWatchBuffer + 1 {
		ok(cms.Create(f.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{})).must(t)
	}
	added := 0
	for {
		ev, open := nextEvent(t, w)
		if !open {
			break
		}
		switch ev.Type {
		case watch.Added:
			added++
		case watch.Error:
			if s, _ := ev.Object.(*metav1.Status); s == nil || s.Code != http.StatusGone {
				t.Errorf("error event %v", ev.Object)
			}
		default:
			t.Errorf("event %s", ev.Type)
		}
	}
	if added != kubeWatchBuffer {
		t.Errorf("%d events before the watch ended", added)
	}
	// The server went on without the slow watch.
	if got := ok(cms.List(f.ctx, metav1.ListOptions{})).must(t); len(got.Items) != kubeWatchBuffer+1 {
		t.Errorf("%d config maps", len(got.Items))
	}
}
