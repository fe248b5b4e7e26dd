// Package engine_test guards the engine's layering: the areas form a star
// around the leaf of shared shapes and the packages every area may use,
// and only the composition root joins them. README.md's Architecture
// section draws the same picture.
package engine_test

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/instantstart/instantstart"

// The engine's packages by layer, relative to engine/. A package that is
// in no layer fails TestEveryEnginePackageHasALayer: place it on purpose.
var (
	// leaf holds the shapes every area shares; it imports only errs.
	leaf = []string{"hyperpod"}
	// foundations are what every area stands on.
	foundations = []string{"errs", "store", "ops", "cloud", "auth"}
	// libraries each do one thing for the areas and know no area.
	libraries = []string{"capacity", "groupspec", "netplan", "podlogs", "kubecrds", "refresh"}
	// areas each own their records and operations and import no other
	// area: what one needs of another is an interface it declares.
	areas = []string{"cluster", "compute", "features", "storage", "models", "training", "inference", "preflight"}
	// root builds the engine from the areas: the server and main use it,
	// and tests through apptest.
	root = []string{"app"}
	// providers implement cloud's ports: the real AWS one and the
	// simulator with its wire endpoint.
	providers = []string{"cloud/awscloud", "sim", "simwire"}
	// testSupport is imported by tests only.
	testSupport = []string{"app/apptest", "simtest", "testwait", "kubetest", "kumotest"}
)

// pkg is one package as go list describes it.
type pkg struct {
	path    string   // relative to engine/, or the module path outside it
	imports []string // direct imports, module packages only
	deps    []string // every package it depends on, module packages only
}

// listPackages lists the module's packages (without their tests).
// The module's packages are listed once for every test of the file.
var (
	listed     sync.Once
	listedOut  []byte
	listedFail error
)

func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	listed.Do(func() {
		listedOut, listedFail = exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{join .Deps \",\"}}", module+"/...").Output()
	})
	out, err := listedOut, listedFail
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	short := func(p string) string {
		if rest, ok := strings.CutPrefix(p, module+"/engine/"); ok {
			return rest
		}
		return p
	}
	mine := func(list string) []string {
		var out []string
		for p := range strings.SplitSeq(list, ",") {
			if p == module || strings.HasPrefix(p, module+"/") {
				out = append(out, short(p))
			}
		}
		return out
	}
	pkgs := map[string]pkg{}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		p := pkg{path: short(f[0]), imports: mine(f[1]), deps: mine(f[2])}
		pkgs[p.path] = p
	}
	return pkgs
}

// layerOf names the layer of engine package p ("" when none), and the
// top folder that makes p part of it (training/recipe is the training area).
func layerOf(p string) (layer, home string) {
	for _, l := range []struct {
		name string
		pkgs []string
	}{{"leaf", leaf}, {"foundation", foundations}, {"library", libraries}, {"area", areas}, {"root", root}, {"provider", providers}, {"test support", testSupport}} {
		for _, q := range l.pkgs {
			if (p == q || strings.HasPrefix(p, q+"/")) && len(q) > len(home) {
				layer, home = l.name, q
			}
		}
	}
	return layer, home
}

func engineOnly(pkgs map[string]pkg) []pkg {
	var out []pkg
	for _, p := range pkgs {
		if !strings.HasPrefix(p.path, module) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b pkg) int { return strings.Compare(a.path, b.path) })
	return out
}

func TestEveryEnginePackageHasALayer(t *testing.T) {
	for _, p := range engineOnly(listPackages(t)) {
		if layer, _ := layerOf(p.path); layer == "" {
			t.Errorf("engine/%s is in no layer: add it to one of the lists in engine/layers_test.go (and to README.md's picture)", p.path)
		}
	}
}

// An area depends, directly or not, on no other area and on nothing but
// the leaf, the foundations and the libraries.
func TestAnAreaImportsNoOtherArea(t *testing.T) {
	for _, p := range engineOnly(listPackages(t)) {
		layer, home := layerOf(p.path)
		if layer != "area" {
			continue
		}
		for _, d := range p.deps {
			dl, dhome := layerOf(d)
			switch {
			case dhome == home:
			case dl == "area":
				t.Errorf("area engine/%s depends on area engine/%s: declare the small interface it needs and let engine/app fill it", p.path, d)
			case dl != "leaf" && dl != "foundation" && dl != "library":
				t.Errorf("area engine/%s depends on %s (%s): an area uses only the leaf, %s and the libraries", p.path, d, dl, strings.Join(foundations, ", "))
			}
		}
	}
}

// The leaf, the foundations and the libraries know no area, and the leaf
// imports nothing of the engine but errs.
func TestWhatAreasStandOnKnowsNoArea(t *testing.T) {
	for _, p := range engineOnly(listPackages(t)) {
		layer, _ := layerOf(p.path)
		if layer != "leaf" && layer != "foundation" && layer != "library" {
			continue
		}
		for _, d := range p.deps {
			if dl, _ := layerOf(d); dl != "leaf" && dl != "foundation" && dl != "library" {
				t.Errorf("%s engine/%s depends on engine/%s (%s): what areas stand on knows no area, root, provider or test support", layer, p.path, d, dl)
			}
			if layer == "leaf" && d != "errs" {
				t.Errorf("the leaf engine/%s depends on engine/%s: it imports nothing of the engine but errs", p.path, d)
			}
		}
	}
}

// Only main and the server build the engine (and tests, through apptest);
// nothing but tests imports apptest or the other test support.
func TestOnlyTheServerAndMainBuildTheEngine(t *testing.T) {
	allowed := map[string]bool{module: true, module + "/resolvers/server": true, "app/apptest": true}
	for _, p := range listPackages(t) {
		for _, imp := range p.imports {
			if imp == "app" && !allowed[p.path] {
				t.Errorf("%s imports engine/app: only main and resolvers/server build the engine; pass what is needed in instead", p.path)
			}
			if l, _ := layerOf(imp); l == "test support" && !strings.HasPrefix(p.path, module) {
				if pl, _ := layerOf(p.path); pl != "test support" {
					t.Errorf("engine/%s imports engine/%s, which is for tests only", p.path, imp)
				}
			}
		}
	}
}

// Every area, library and the leaf has tests beside its code.
func TestEveryAreaHasTestsBesideIt(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{len .TestGoFiles}} {{len .XTestGoFiles}}", module+"/engine/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		var path string
		var internal, external int
		if _, err := fmt.Sscan(line, &path, &internal, &external); err != nil {
			t.Fatalf("go list printed %q: %v", line, err)
		}
		p := strings.TrimPrefix(path, module+"/engine/")
		if layer, home := layerOf(p); (layer == "area" || layer == "library" || layer == "leaf") && p == home && internal+external == 0 {
			t.Errorf("%s engine/%s has no tests beside its code", layer, p)
		}
	}
}
