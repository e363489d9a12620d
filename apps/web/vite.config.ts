import { defineConfig } from "vite";

/**
 * The web app's build: hashed files under app-dist/assets/ (cached for a year by the
 * server), index.html beside them (never cached). No inline script or style, so the page
 * runs under `script-src 'self'` and `style-src 'self'`.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  build: {
    outDir: "app-dist",
    emptyOutDir: true,
    assetsDir: "assets",
    // A CSS or small asset inlined into JavaScript or HTML would need 'unsafe-inline'.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
    rollupOptions: {
      input: { index: "index.html", "download-worker": "src/download-worker.ts" },
      output: {
        // The service worker keeps one address (the server serves it, never cached);
        // everything else is named by its content's hash.
        entryFileNames: (chunk) => (chunk.name === "download-worker" ? "[name].js" : "assets/[name]-[hash].js"),
      },
    },
  },
  resolve: { conditions: ["@cellar/source", "browser", "module", "import", "default"] },
});
