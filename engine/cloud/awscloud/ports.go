package awscloud

// The provider's SDK-backed ports are served by the structs in
// ports_gen.go, which hold the SDK client's methods the port names and
// never the client itself: see internal/portgen for why. Each struct is
// built from its client's method values, so an SDK upgrade that changes
// a method the engine relies on breaks the build, rather than a run.

//go:generate go run ./internal/portgen
