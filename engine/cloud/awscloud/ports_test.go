package awscloud

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/eks"
)

// sdkServices is where the SDK's service clients live.
const sdkServices = "github.com/aws/aws-sdk-go-v2/service/"

// TestNoSDKClientIsHeldBehindAnInterface walks everything a provider holds
// and fails on any SDK service client found there. The provider's ports
// are interfaces, and so are the clients' homes further in (a Kubernetes
// adapter, a round tripper); a client held in one makes the linker keep
// every operation of its service, as internal/portgen explains. Function
// values are where clients may live: the walk cannot see into them, and
// neither does the linker's method table.
func TestNoSDKClientIsHeldBehindAnInterface(t *testing.T) {
	isolateAWSEnv(t)
	r := newTestRegions(t, "http://127.0.0.1:1")
	p, err := r.Provider("us-west-2")
	if err != nil {
		t.Fatal(err)
	}
	// Build a cluster's Kubernetes clients too, so that what they hold is
	// walked: the token source, the round trippers.
	kube := p.Kubernetes.(*kubeAdapter)
	if _, _, err := kube.newClients("demo", "https://127.0.0.1:1", ""); err != nil {
		t.Fatal(err)
	}
	w := clientWalk{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(p), "provider")
	w.walk(reflect.ValueOf(kube), "kubernetes adapter")
	for _, found := range w.found {
		t.Errorf("%s; hold the generated port or the client's method values instead", found)
	}
	if w.visited < 50 {
		t.Fatalf("the walk visited %d values; it did not get into the provider", w.visited)
	}
}

// TestTheWalkFindsAClient shows the walk above can fail: a client held in
// a struct field behind an interface is found.
func TestTheWalkFindsAClient(t *testing.T) {
	isolateAWSEnv(t)
	r := newTestRegions(t, "http://127.0.0.1:1")
	type holder struct{ inner any }
	w := clientWalk{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(&holder{inner: []any{eks.NewFromConfig(r.cfg.Copy())}}), "holder")
	if len(w.found) != 1 || !strings.Contains(w.found[0], "holder.inner ([]interface {})[0] (*eks.Client) holds a *eks.Client") {
		t.Fatalf("found %q; want the one *eks.Client", w.found)
	}
}

// clientWalk visits every value reachable from a root, through pointers,
// interfaces, structs (unexported fields too), slices, arrays and maps,
// and records each SDK service client it meets.
type clientWalk struct {
	seen    map[uintptr]bool
	found   []string
	visited int
}

func (w *clientWalk) walk(v reflect.Value, path string) {
	if !v.IsValid() {
		return
	}
	w.visited++
	t := v.Type()
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if e := t.Elem(); e.Name() == "Client" && strings.HasPrefix(e.PkgPath(), sdkServices) {
			w.found = append(w.found, fmt.Sprintf("%s holds a %s", path, t))
			return
		}
		if w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem(), path)
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), fmt.Sprintf("%s (%s)", path, v.Elem().Type()))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			w.walk(v.Field(i), path+"."+t.Field(i).Name)
		}
	case reflect.Slice:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Array:
		for i := range v.Len() {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		if v.IsNil() || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		it := v.MapRange()
		for it.Next() {
			w.walk(it.Key(), path+"[key]")
			w.walk(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()))
		}
	}
}
