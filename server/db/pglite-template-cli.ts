import { buildTemplate } from './pglite-template.ts'

const started = Date.now()
const file = await buildTemplate()
console.log(`PGlite template ready: ${file} (${Date.now() - started} ms)`)
