// Package kubecrds holds the CustomResourceDefinitions of the custom kinds
// the engine makes (HyperPodPyTorchJob, RayJob, the HyperPod inference
// operator's InferenceEndpointConfig and JumpStartModel, KEDA's
// ScaledObject and TriggerAuthentication, managed Karpenter's NodePool and
// HyperpodNodeClass; more kinds add a file to crds/)
// and checks objects against them before they are sent. A real API
// server prunes fields its schema does not know, silently dropping what the
// engine meant; Validate refuses them instead, naming the field.
package kubecrds

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

//go:embed crds/*.yaml
var files embed.FS

// CRD is one CustomResourceDefinition, parsed.
type CRD struct {
	// Name is the CRD's own name, <plural>.<group>.
	Name       string
	Group      string
	Kind       string
	Plural     string
	Namespaced bool
	Versions   []Version
	// Manifest is the file as written (YAML), to apply to an API server.
	Manifest []byte
}

// Version is one version a CRD serves.
type Version struct {
	Name    string
	Served  bool
	Storage bool
	// StatusSubresource says status is written apart from spec.
	StatusSubresource bool
	// ScaleSubresource says the kind serves /scale, as a Deployment does,
	// so that an autoscaler can set its replicas.
	ScaleSubresource bool
	Schema           *Schema
}

// GroupVersionKind returns the kind at version v.
func (c *CRD) GroupVersionKind(v string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: c.Group, Version: v, Kind: c.Kind}
}

// GroupVersionResource returns the resource at version v.
func (c *CRD) GroupVersionResource(v string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: c.Group, Version: v, Resource: c.Plural}
}

// Version returns the served version named v, or nil.
func (c *CRD) Version(v string) *Version {
	for i := range c.Versions {
		if c.Versions[i].Name == v && c.Versions[i].Served {
			return &c.Versions[i]
		}
	}
	return nil
}

// manifest is the part of an apiextensions.k8s.io/v1
// CustomResourceDefinition this package reads. It is decoded strictly, so
// a field written in a file and not known here is an error, not ignored.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind       string   `json:"kind"`
			ListKind   string   `json:"listKind"`
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			ShortNames []string `json:"shortNames,omitempty"`
			Categories []string `json:"categories,omitempty"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name         string `json:"name"`
			Served       bool   `json:"served"`
			Storage      bool   `json:"storage"`
			Subresources *struct {
				Status *struct{} `json:"status,omitempty"`
				Scale  *struct {
					SpecReplicasPath   string `json:"specReplicasPath"`
					StatusReplicasPath string `json:"statusReplicasPath"`
					LabelSelectorPath  string `json:"labelSelectorPath,omitempty"`
				} `json:"scale,omitempty"`
			} `json:"subresources,omitempty"`
			AdditionalPrinterColumns []struct {
				Name     string `json:"name"`
				Type     string `json:"type"`
				JSONPath string `json:"jsonPath"`
			} `json:"additionalPrinterColumns,omitempty"`
			Schema struct {
				OpenAPIV3Schema *Schema `json:"openAPIV3Schema"`
			} `json:"schema"`
		} `json:"versions"`
	} `json:"spec"`
}

// All returns every CRD of the package, parsed and checked to be a valid
// structural schema, sorted by name.
func All() ([]*CRD, error) {
	names, err := fs.Glob(files, "crds/*.yaml")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]*CRD, 0, len(names))
	for _, name := range names {
		raw, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		c, err := parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Base(name), err)
		}
		out = append(out, c)
	}
	return out, nil
}

func parse(raw []byte) (*CRD, error) {
	js, err := utilyaml.ToJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("read YAML: %w", err)
	}
	var m manifest
	if err := strictUnmarshal(js, &m); err != nil {
		return nil, err
	}
	if m.APIVersion != "apiextensions.k8s.io/v1" || m.Kind != "CustomResourceDefinition" {
		return nil, fmt.Errorf("not an apiextensions.k8s.io/v1 CustomResourceDefinition (%s %s)", m.APIVersion, m.Kind)
	}
	n := m.Spec.Names
	if m.Metadata.Name != n.Plural+"."+m.Spec.Group {
		return nil, fmt.Errorf("metadata.name %q is not <plural>.<group> (%s.%s)", m.Metadata.Name, n.Plural, m.Spec.Group)
	}
	if n.Kind == "" || n.Plural == "" || n.Plural != strings.ToLower(n.Plural) {
		return nil, fmt.Errorf("spec.names: kind and a lower-case plural are required")
	}
	if m.Spec.Scope != "Namespaced" && m.Spec.Scope != "Cluster" {
		return nil, fmt.Errorf("spec.scope: %q is neither Namespaced nor Cluster", m.Spec.Scope)
	}
	c := &CRD{Name: m.Metadata.Name, Group: m.Spec.Group, Kind: n.Kind, Plural: n.Plural, Namespaced: m.Spec.Scope == "Namespaced", Manifest: raw}
	storage := 0
	for i, v := range m.Spec.Versions {
		where := fmt.Sprintf("spec.versions[%d]", i)
		s := v.Schema.OpenAPIV3Schema
		if s == nil {
			return nil, fmt.Errorf("%s.schema.openAPIV3Schema: required", where)
		}
		if err := s.checkStructural(where+".schema.openAPIV3Schema", 0); err != nil {
			return nil, err
		}
		if s.Type != "object" {
			return nil, fmt.Errorf("%s.schema.openAPIV3Schema.type: must be object", where)
		}
		if v.Storage {
			storage++
		}
		ver := Version{Name: v.Name, Served: v.Served, Storage: v.Storage, Schema: s}
		if sub := v.Subresources; sub != nil {
			ver.StatusSubresource = sub.Status != nil
			if sub.Scale != nil {
				if sub.Scale.SpecReplicasPath == "" || sub.Scale.StatusReplicasPath == "" {
					return nil, fmt.Errorf("%s.subresources.scale: specReplicasPath and statusReplicasPath are required", where)
				}
				ver.ScaleSubresource = true
			}
		}
		c.Versions = append(c.Versions, ver)
	}
	if storage != 1 {
		return nil, fmt.Errorf("spec.versions: exactly one version must be the storage version, not %d", storage)
	}
	return c, nil
}

// strictUnmarshal decodes JSON refusing fields the target does not have.
func strictUnmarshal(js []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(js)))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// loaded is the package's CRDs, parsed once for Validate. They are never
// changed after.
var loaded = sync.OnceValues(func() (map[string]*CRD, error) {
	all, err := All()
	if err != nil {
		return nil, err
	}
	byKind := make(map[string]*CRD, len(all))
	for _, c := range all {
		byKind[c.Group+"/"+c.Kind] = c
	}
	return byKind, nil
})

// Lookup returns the CRD and served version of apiVersion and kind.
func Lookup(apiVersion, kind string) (*CRD, *Version, error) {
	byKind, err := loaded()
	if err != nil {
		return nil, nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("apiVersion %q: %w", apiVersion, err)
	}
	c := byKind[gv.Group+"/"+kind]
	if c == nil {
		return nil, nil, fmt.Errorf("no CRD here defines kind %s in group %q", kind, gv.Group)
	}
	v := c.Version(gv.Version)
	if v == nil {
		return nil, nil, fmt.Errorf("%s does not serve version %q", c.Name, gv.Version)
	}
	return c, v, nil
}
