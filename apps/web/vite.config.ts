// Vite build of the dashboard: apps/web -> dist/web, served by the hub at `/` (see apps/hub/src/web).
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  root: __dirname,
  base: '/',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: resolve(__dirname, '../../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1000,
  },
  server: {
    // `npx vite apps/web` during development: API and change feed from a hub on :8080.
    proxy: { '/v1': 'http://127.0.0.1:8080', '/socket.io': { target: 'ws://127.0.0.1:8080', ws: true } },
  },
});
