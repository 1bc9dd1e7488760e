import { vitePlugin as remix } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import remixConfig from './remix.config.js'

const appDirectory = fileURLToPath(new URL('./app/', import.meta.url))

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

export default defineConfig({
  server: { middlewareMode: true },
  build: {
    target: 'es2022',
    // Two compress passes of terser take a few seconds more than esbuild's minifier and save
    // about 3% of every page's JavaScript (bench/health-js-size.ts).
    minify: 'terser',
    terserOptions: { compress: { passes: 2 } },
    rollupOptions: {
      // The console's own modules only declare things; importing one for its effects is never
      // intended. Saying so lets a module that is imported for the server's render alone (a
      // lazily loaded panel's static twin) drop out of the browser's chunk with its imports.
      treeshake: { moduleSideEffects: (id) => !id.startsWith(appDirectory) },
      output: {
        // Vite's dynamic-import helper would otherwise land in whichever chunk first needs it,
        // making every page that lazy-loads anything also load that chunk. React, Remix and the
        // few tiny modules every page imports share one chunk: each small chunk costs its own
        // compression overhead and request.
        manualChunks: (id) => (id.includes('vite/preload-helper') ? 'preload-helper' : /node_modules\/(react|react-dom|scheduler|@remix-run|react-router|react-router-dom|turbo-stream|remix-utils|clsx)\/|\/app\/lib\/(nonce-provider|route-handle|cn)\.ts/.test(id) ? 'framework' : undefined),
      },
    },
  },
  plugins: [
    tailwindcss(),
    // Route conventions, ignored route files and future flags live in remix.config.js.
    remix(remixConfig),
  ],
})
