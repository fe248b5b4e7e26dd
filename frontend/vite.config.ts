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
};

export default defineConfig({
  base: "/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    rolldownOptions: { input: pages },
  },
  server: {
    proxy: { "/graphql": proxy, "/auth": proxy, "/mcp": proxy },
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
