// Package frontend holds the web UI: its TypeScript source, and the assets
// built from it (npm run build, in this folder) that the binary serves at /.
// The built assets are committed, so building the binary needs no Node.
package frontend

import "embed"

// Dist is the built web UI under the folder dist: dist/index.html and its
// hashed assets under dist/assets/. Serve fs.Sub(Dist, "dist"), answering
// index.html for paths that name no file (the UI routes in the browser).
//
//go:embed all:dist
var Dist embed.FS
