// The console's build: one ES module and one stylesheet, named by the hash
// of their content, written where the Go package internal/console embeds
// them. The build is deterministic (internal/console's test rebuilds it and
// compares), so nothing in it may depend on the time or the machine.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  // `npx vite` serves the console at /console/ with reloads, its API calls
  // sent on to a running server (RECORDS_URL); the generated client lives
  // outside this folder.
  server: { fs: { allow: [".."] }, proxy: { "/v1": process.env["RECORDS_URL"] ?? "http://127.0.0.1:8080" } },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../internal/console/dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    // Vite's preload helper would be inlined into the page; the CSP forbids inline scripts.
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    sourcemap: false,
  },
});
