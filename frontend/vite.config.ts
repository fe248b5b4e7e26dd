import { resolve } from "node:path";
import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The server the dev server forwards the API to (go run . --listen ...).
const api = process.env.INSTANTSTART_API ?? "http://127.0.0.1:3399";

// The server accepts cookie-authenticated requests and WebSocket upgrades
// only from its own origin, so the dev proxy presents the API's origin.
const proxy = { target: api, changeOrigin: true, ws: true, headers: { origin: api } };

// Each page of the UI is an HTML entry; a new page (the playground) is one
// more line here and one more HTML file beside index.html.
const pages = {
  app: resolve(import.meta.dirname, "index.html"),
  // GraphiQL at /playground; its code and Monaco's workers are only in this
  // entry's chunks, never loaded by the app.
  playground: resolve(import.meta.dirname, "playground.html"),
};

export default defineConfig({
  base: "/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: pages,
      onLog(level, log, handler) {
        // GraphiQL's packages are React Compiler output whose modules start
        // with "use no memo"; bundling drops the directive, harmlessly.
        if (log.code === "MODULE_LEVEL_DIRECTIVE" && log.id?.includes("/node_modules/")) return;
        handler(level, log);
      },
    },
  },
  optimizeDeps: {
    // Monaco's workers are imported with ?worker, which the dev server's
    // dependency pre-bundling cannot load: leave these modules to Vite's
    // worker handling (vite build bundles them either way), but pre-bundle
    // the packages the GraphQL worker imports (some are CommonJS).
    exclude: ["graphiql/setup-workers/vite", "@graphiql/react/setup-workers/vite"],
    include: ["graphql-language-service", "picomatch-browser"],
  },
  server: {
    proxy: { "/graphql": proxy, "/auth": proxy, "/mcp": proxy },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
