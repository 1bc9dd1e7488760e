// Bundles the production server (server.ts and everything it imports from server/ and contract/)
// into build/lookout/, so `npm start` runs plain Node: no TypeScript compiled at start, no tsx
// loader and no second process (docs/decisions/013-start-time.md). Packages stay external and
// load from node_modules. The migrations are copied beside the bundle, where migrate.ts looks for
// them relative to its own module, so the bundle always runs the schema it was built with. Then
// the migrated PGlite template is made (server/db/pglite-template.ts), keyed by those migrations.
// Runs after `remix vite:build`, which empties build/. It also lists the packages the bundle
// imports statically (build/lookout/preload.json), which scripts/start.mjs loads while a first
// start copies the template (docs/decisions/018).
import { cpSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'vite'

const root = path.resolve(import.meta.dirname, '..')
const outDir = path.join(root, 'build', 'lookout')
const started = Date.now()

const result = await build({
  root,
  configFile: false,
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir,
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    rollupOptions: {
      input: {
        server: path.join(root, 'server.ts'),
        'pglite-template': path.join(root, 'server', 'db', 'pglite-template.ts'),
      },
      output: {
        format: 'esm',
        entryFileNames: '[name].js',
        // Beside the entries, not in assets/: modules locate files relative to import.meta.url.
        chunkFileNames: '[name]-[hash].js',
      },
    },
  },
})
cpSync(path.join(root, 'server', 'db', 'migrations'), path.join(outDir, 'migrations'), { recursive: true })
// Static imports only: what the bundle loads lazily (PGlite, Vite in development) stays lazy.
const outputs = (Array.isArray(result) ? result : [result]).flatMap((entry) => entry.output)
const ownFiles = new Set(outputs.map((entry) => entry.fileName))
const packages = new Set()
for (const chunk of outputs) {
  if (chunk.type !== 'chunk') continue
  for (const id of chunk.imports) if (!ownFiles.has(id) && !id.startsWith('node:')) packages.add(id)
}
writeFileSync(path.join(outDir, 'preload.json'), `${JSON.stringify([...packages].sort(), null, 2)}\n`)
console.log(`Server bundle ready: ${path.relative(root, outDir)} (${Date.now() - started} ms)`)

const templateStarted = Date.now()
const { buildTemplate } = await import(pathToFileURL(path.join(outDir, 'pglite-template.js')).href)
const template = await buildTemplate()
console.log(`PGlite template ready: ${path.relative(root, template)} (${Date.now() - templateStarted} ms)`)
