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

/**
 * Vite's dynamic-import helper would otherwise land in whichever chunk first needs it, making
 * every page that lazy-loads anything also load that chunk. Every chunk costs its own gzip
 * overhead and request (seventeen chunks of 0.1–3 KB compress to 17.2 KB apart and 12.9 KB
 * together), so modules that pages load together share a chunk (decision 014):
 * - `framework`: React, Remix, the preload helper and the small modules every document loads
 *   (nonce, route handle, `cn`, icons, button, alert, input, label, badge, toast, `DateTime`, the
 *   error boundary, formatting, preferences, `formShape`). Badge, toast and `DateTime` (about
 *   1.5 KB) are here so detail pages that show them no longer load `lists` and `tables` (7 KB).
 * - `tables`: the table markup, paging and sort links every list and /health render.
 * - `lists`: DataTable and the list page of the list screens.
 * - `dialogs`: the URL dialog and the behaviour every dialog shares (Escape, focus, the layer).
 *   Apart from `lists`, so a page that shows a dialog without a table (/incidents/link) does not
 *   preload the tables.
 * - `modal`: the modal and the confirm dialog. Nearly every page loads them on demand (`lazy`,
 *   rendered in place by the server); named, so that Rollup does not pull them into `lists`.
 * - `forms`: useSchemaForm and conform's prop helpers, for the pages and dialogs with a form
 *   (decision 016: neither zod nor conform's form runtime reaches the browser). `Field` and
 *   `ErrorList` stay a chunk of their own: list pages' filters and lazy dialogs use them alone.
 * Rollup puts a manual chunk's unassigned imports into that chunk, lazily loaded server twins
 * included, so the lazily loaded error page is named here to keep it out of `framework`.
 */
const FRAMEWORK_PACKAGES = /node_modules\/(react|react-dom|scheduler|@remix-run|react-router|react-router-dom|turbo-stream|remix-utils|clsx)\//
const CHUNK_OF_MODULE: Array<[RegExp, string]> = [
  [/\/app\/components\/(error-page|not-found)\.tsx$/, 'error-page'],
  [/\/app\/(lib\/(nonce-provider|route-handle|cn|format|preferences|form-shape)\.ts|components\/(error-boundary|error-view|inline-error|toast|date-time|ui\/(icons|button|alert|input|label|badge))\.tsx)$/, 'framework'],
  [/\/app\/components\/(data-table\/(url-table|pagination|table-parts|hidden-params|use-virtual-window)|ui\/table)\.tsx?$/, 'tables'],
  [/\/app\/components\/(data-table\/data-table|list-page\/list-page)\.tsx$/, 'lists'],
  [/\/app\/components\/(modal\/dialog-behaviour|ui\/dialog)\.tsx?$/, 'dialogs'],
  [/\/app\/components\/(modal\/modal|confirm-dialog\/confirm-dialog)\.tsx$/, 'modal'],
  [/\/app\/components\/use-schema-form\.ts$/, 'forms'],
]

// remix-utils hooks only one page uses (the run page's live updates) stay with that page.
const PAGE_ONLY_MODULES = /node_modules\/remix-utils\/build\/react\/use-event-source\.js$/

function chunkOf(id: string): string | undefined {
  if (PAGE_ONLY_MODULES.test(id)) return undefined
  if (id.includes('vite/preload-helper') || FRAMEWORK_PACKAGES.test(id)) return 'framework'
  if (id.includes('node_modules/@conform-to/react/')) return 'forms'
  return CHUNK_OF_MODULE.find(([pattern]) => pattern.test(id))?.[1]
}

export default defineConfig({
  server: { middlewareMode: true },
  build: {
    target: 'es2022',
    // LOOKOUT_SOURCEMAP=1 writes source maps, to see which modules make up a chunk.
    sourcemap: process.env.LOOKOUT_SOURCEMAP === '1',
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
        manualChunks: chunkOf,
      },
    },
  },
  plugins: [
    tailwindcss(),
    // Route conventions, ignored route files and future flags live in remix.config.js.
    remix(remixConfig),
  ],
})
