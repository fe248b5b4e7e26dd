package sim

import (
	"reflect"
	"testing"
)

func TestDefaultCatalogIsFreshAndDeterministic(t *testing.T) {
	a, b := DefaultCatalog(), DefaultCatalog()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two default catalogs differ")
	}
	a[0].Zones[0].InstanceTypes[0] = "changed"
	if DefaultCatalog()[0].Zones[0].InstanceTypes[0] == "changed" {
		t.Error("DefaultCatalog shares its slices")
	}
	c, err := newCatalog(DefaultCatalog())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(c.instanceTypes()); got != 16 {
		t.Errorf("%d instance types, want 16", got)
	}
	for _, cpu := range []string{"m5.large", "m5.xlarge", "m5.2xlarge", "c5.4xlarge", "t3.medium", "g5.xlarge"} {
		for _, r := range c.regions {
			for _, z := range r.Zones {
				if !c.offered(r.Name, z.Name, "ml."+cpu) {
					t.Errorf("%s does not offer %s", z.Name, cpu)
				}
			}
		}
	}
}

func TestCustomCatalog(t *testing.T) {
	regions := []Region{{Name: "test-1", Zones: []Zone{{Name: "test-1a", ID: "tst1-az1", InstanceTypes: []string{"p5.48xlarge"}}}}}
	w := ok(New(Options{Regions: regions})).must(t)
	if w.DefaultRegion() != "test-1" {
		t.Errorf("default region = %s", w.DefaultRegion())
	}
	if _, err := w.Provider("us-east-1"); err == nil {
		t.Error("a region outside the custom catalog was accepted")
	}
	for name, bad := range map[string][]Region{
		"repeated region": {regions[0], regions[0]},
		"repeated zone":   {{Name: "x", Zones: []Zone{regions[0].Zones[0], regions[0].Zones[0]}}},
		"zone without id": {{Name: "x", Zones: []Zone{{Name: "x-a"}}}},
	} {
		if _, err := New(Options{Regions: bad}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
