package sim

import (
	"fmt"
	"sort"
	"strings"
)

// Region is one simulated AWS region and its availability zones.
type Region struct {
	Name  string
	Zones []Zone
}

// Zone is one availability zone and the instance types it offers.
type Zone struct {
	Name          string   // e.g. "us-west-2a"
	ID            string   // e.g. "usw2-az1"
	InstanceTypes []string // EC2 names, without SageMaker's "ml." prefix
}

// regionSpec describes a default region compactly: its zone letters, the
// prefix of its zone ids, and for each scarce accelerator type the zone
// letters that offer it. CPU and g5 types are offered in every zone.
type regionSpec struct {
	name, idPrefix, letters string
	scarce                  map[string]string
}

// DefaultCatalog returns the simulator's default regions. Offerings vary by
// zone as in AWS: the newest accelerators live in a few zones only.
func DefaultCatalog() []Region {
	acceleratorTypes := []string{
		"p5.48xlarge", "p5e.48xlarge", "p4d.24xlarge", "p4de.24xlarge",
		"g5.xlarge", "g5.12xlarge", "g5.48xlarge", "g6.12xlarge", "g6e.12xlarge",
		"trn1.32xlarge", "trn2.48xlarge",
	}
	cpuTypes := []string{"m5.large", "m5.xlarge", "m5.2xlarge", "c5.4xlarge", "t3.medium"}
	specs := []regionSpec{
		{"us-east-1", "use1", "abcd", map[string]string{
			"p5.48xlarge": "ac", "p5e.48xlarge": "a", "p4d.24xlarge": "abc", "p4de.24xlarge": "b",
			"g6.12xlarge": "abc", "g6e.12xlarge": "acd", "trn1.32xlarge": "ac",
		}},
		{"us-east-2", "use2", "abc", map[string]string{
			"p5.48xlarge": "ab", "p4d.24xlarge": "bc", "g6.12xlarge": "abc", "g6e.12xlarge": "ab",
			"trn1.32xlarge": "abc", "trn2.48xlarge": "b",
		}},
		{"us-west-2", "usw2", "abcd", map[string]string{
			"p5.48xlarge": "abc", "p5e.48xlarge": "b", "p4d.24xlarge": "abcd", "p4de.24xlarge": "ab",
			"g6.12xlarge": "abcd", "g6e.12xlarge": "bcd", "trn1.32xlarge": "acd", "trn2.48xlarge": "d",
		}},
		{"eu-west-1", "euw1", "abc", map[string]string{
			"p5.48xlarge": "a", "p4d.24xlarge": "ab", "g6.12xlarge": "ab", "g6e.12xlarge": "a",
		}},
		{"ap-northeast-1", "apne1", "acd", map[string]string{
			"p5.48xlarge": "a", "p4d.24xlarge": "cd", "g6.12xlarge": "ac", "g6e.12xlarge": "c",
		}},
	}
	regions := make([]Region, 0, len(specs))
	for _, s := range specs {
		r := Region{Name: s.name}
		for i, letter := range s.letters {
			z := Zone{Name: s.name + string(letter), ID: fmt.Sprintf("%s-az%d", s.idPrefix, i+1)}
			for _, typ := range acceleratorTypes {
				where, scarce := s.scarce[typ]
				if strings.HasPrefix(typ, "g5.") || (scarce && strings.ContainsRune(where, letter)) {
					z.InstanceTypes = append(z.InstanceTypes, typ)
				}
			}
			z.InstanceTypes = append(z.InstanceTypes, cpuTypes...)
			sort.Strings(z.InstanceTypes)
			r.Zones = append(r.Zones, z)
		}
		regions = append(regions, r)
	}
	return regions
}

// catalog indexes the regions a World was built with. It never changes after
// New.
type catalog struct {
	regions []Region
	byName  map[string]int
}

func newCatalog(regions []Region) (catalog, error) {
	if len(regions) == 0 {
		return catalog{}, fmt.Errorf("sim: the catalog has no region")
	}
	c := catalog{byName: map[string]int{}}
	zones := map[string]bool{}
	for i, r := range regions {
		if r.Name == "" || len(r.Zones) == 0 {
			return catalog{}, fmt.Errorf("sim: catalog region %d needs a name and at least one zone", i)
		}
		if _, dup := c.byName[r.Name]; dup {
			return catalog{}, fmt.Errorf("sim: catalog region %q appears twice", r.Name)
		}
		cp := Region{Name: r.Name}
		for _, z := range r.Zones {
			if z.Name == "" || z.ID == "" || zones[z.Name] || zones[z.ID] {
				return catalog{}, fmt.Errorf("sim: catalog zone %q/%q of %s is unnamed or repeated", z.Name, z.ID, r.Name)
			}
			zones[z.Name], zones[z.ID] = true, true
			types := append([]string(nil), z.InstanceTypes...)
			sort.Strings(types)
			cp.Zones = append(cp.Zones, Zone{Name: z.Name, ID: z.ID, InstanceTypes: types})
		}
		c.byName[r.Name] = len(c.regions)
		c.regions = append(c.regions, cp)
	}
	return c, nil
}

func (c catalog) names() []string {
	out := make([]string, len(c.regions))
	for i, r := range c.regions {
		out[i] = r.Name
	}
	return out
}

func (c catalog) region(name string) (Region, bool) {
	i, ok := c.byName[name]
	if !ok {
		return Region{}, false
	}
	return c.regions[i], true
}

// zone finds a zone of region by name ("us-west-2a") or id ("usw2-az1").
func (c catalog) zone(region, nameOrID string) (Zone, bool) {
	r, _ := c.region(region)
	for _, z := range r.Zones {
		if z.Name == nameOrID || z.ID == nameOrID {
			return z, true
		}
	}
	return Zone{}, false
}

func (c catalog) zoneNames(region string) []string {
	r, _ := c.region(region)
	out := make([]string, len(r.Zones))
	for i, z := range r.Zones {
		out[i] = z.Name
	}
	return out
}

// offered tells whether zone of region offers typ (an EC2 name, or a
// SageMaker one with the "ml." prefix).
func (c catalog) offered(region, zone, typ string) bool {
	z, ok := c.zone(region, zone)
	if !ok {
		return false
	}
	typ = strings.TrimPrefix(typ, "ml.")
	i := sort.SearchStrings(z.InstanceTypes, typ)
	return i < len(z.InstanceTypes) && z.InstanceTypes[i] == typ
}

// instanceTypes returns every instance type any zone offers, sorted.
func (c catalog) instanceTypes() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.regions {
		for _, z := range r.Zones {
			for _, t := range z.InstanceTypes {
				if !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// knownType tells whether any zone offers typ (with or without "ml.").
func (c catalog) knownType(typ string) bool {
	typ = strings.TrimPrefix(typ, "ml.")
	for _, t := range c.instanceTypes() {
		if t == typ {
			return true
		}
	}
	return false
}

// regionOfZone returns the region of a zone name or id.
func (c catalog) regionOfZone(nameOrID string) (string, bool) {
	for _, r := range c.regions {
		if _, ok := c.zone(r.Name, nameOrID); ok {
			return r.Name, true
		}
	}
	return "", false
}
