/**
 * The console's bundle (docs/console.md): everything under dist/, assets under /console/assets/
 * with content hashes (served immutable by the graph server, packages/graph-server/src/routes/console.ts).
 * No CDN, no runtime download: the Monaco editor of GraphiQL and its workers are bundled too.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // The GraphQL page (GraphiQL, Monaco) is a chunk of its own, loaded when that page is opened.
    chunkSizeWarningLimit: 6000,
    sourcemap: false,
    rollupOptions: {
      // React libraries' "use client" lines mean nothing in a bundle: not worth a warning each.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  worker: { format: 'es' },
});
