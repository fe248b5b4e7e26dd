package app

import (
	"context"
	"strings"
	"testing"
)

func TestNewRefusesABadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no data directory", Config{}, "no data directory"},
		{"unknown provider", Config{DataDir: t.TempDir(), Provider: "gcp"}, `unknown provider "gcp"`},
		{"negative speed", Config{DataDir: t.TempDir(), SimSpeed: -1}, "sim speed must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := New(tt.cfg)
			if err == nil {
				a.Close(context.Background())
				t.Fatal("New accepted the config")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to say %q", err, tt.want)
			}
		})
	}
}

// The default engine is the simulator, with every service built and the
// store closed by Close, so that the same directory opens again.
func TestNewBuildsTheSimulatedEngine(t *testing.T) {
	dir := t.TempDir()
	a, err := New(Config{DataDir: dir, SimSpeed: 1000, AdminToken: "isk_" + strings.Repeat("A", 43)})
	if err != nil {
		t.Fatal(err)
	}
	if a.Config.Provider != ProviderSim || a.World == nil || a.Regions == nil || a.Scale != 1000 {
		t.Errorf("built provider %q, world %v, scale %v; want the simulator at speed 1000", a.Config.Provider, a.World != nil, a.Scale)
	}
	if a.Runner == nil || a.Clusters == nil || a.Compute == nil || a.Features == nil || a.Preflight == nil || a.Auth == nil {
		t.Errorf("a service is missing: %+v", a)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	again, err := New(Config{DataDir: dir, SimSpeed: 1000})
	if err != nil {
		t.Fatalf("reopen after Close: %v", err)
	}
	if err := again.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}
