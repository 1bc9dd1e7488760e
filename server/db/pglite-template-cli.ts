import { buildTemplate } from './pglite-template.ts'

const started = Date.now()
const file = await buildTemplate()
process.stdout.write(`PGlite template ready: ${file} (${Date.now() - started} ms)\n`)
