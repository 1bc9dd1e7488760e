import { readdirSync, readFileSync, existsSync } from 'node:fs'
import path from 'node:path'

/**
 * Which test files depend on the database engine: those that reach tests/support/test-db.ts,
 * directly or through a fixture (createTestDb, useTestApp, createEmptyPostgresDatabase,
 * TEST_ENGINE). That module is the only reader of LOOKOUT_TEST_ENGINE, so every other file
 * does the same work on both passes of `npm test` and runs only in the PGlite pass
 * (docs/decisions/009-test-shape.md). Derived from the imports rather than a list or a naming
 * rule, so a new file lands in the right pass without anyone remembering to say so.
 */
const ENGINE_MODULE = 'tests/support/test-db.ts'
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g

export function engineDependentTestFiles(root: string): string[] {
  const testsDir = path.join(root, 'tests')
  const engine = path.join(root, ENGINE_MODULE)
  const memo = new Map<string, boolean>()

  function reaches(file: string, visiting: Set<string>): boolean {
    if (file === engine) return true
    const known = memo.get(file)
    if (known !== undefined) return known
    if (visiting.has(file)) return false
    visiting.add(file)
    let found = false
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolveTestImport(root, file, match[1]!)
      if (target && reaches(target, visiting)) {
        found = true
        break
      }
    }
    memo.set(file, found)
    return found
  }

  return listTestFiles(testsDir)
    .filter((file) => reaches(file, new Set()))
    .map((file) => path.relative(root, file).split(path.sep).join('/'))
}

/** Only imports inside tests/ matter: app and server modules never read the test engine. */
function resolveTestImport(root: string, from: string, specifier: string): string | undefined {
  let target: string
  if (specifier.startsWith('#tests/')) target = path.join(root, 'tests', specifier.slice('#tests/'.length))
  else if (specifier.startsWith('.')) target = path.resolve(path.dirname(from), specifier)
  else return undefined
  if (!target.startsWith(path.join(root, 'tests') + path.sep)) return undefined
  for (const candidate of [target, `${target}.ts`, `${target}.tsx`]) {
    if (existsSync(candidate) && /\.tsx?$/.test(candidate)) return candidate
  }
  return undefined
}

function listTestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'e2e' ? [] : listTestFiles(full)
    return /\.test\.tsx?$/.test(entry.name) ? [full] : []
  })
}
