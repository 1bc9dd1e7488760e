import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { ROOT } from './processes.ts'

const LOCK = path.join(ROOT, 'build', '.test-build-lock')

/**
 * Makes sure build/ holds a console built from the current sources (scripts/ensure-build.mjs
 * is a no-op when it does). Test files run in parallel forks, so one builds while the others
 * wait on a lock directory; a lock older than five minutes is a crashed run's and is taken over.
 */
export async function ensureConsoleBuild(): Promise<void> {
  mkdirSync(path.dirname(LOCK), { recursive: true })
  const started = Date.now()
  for (;;) {
    try {
      mkdirSync(LOCK)
      break
    } catch {
      const age = Date.now() - (statSafe(LOCK) ?? Date.now())
      if (age > 300_000) rmSync(LOCK, { recursive: true, force: true })
      if (Date.now() - started > 300_000) throw new Error('timed out waiting for another test run to build the console')
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
  try {
    const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'ensure-build.mjs')], { cwd: ROOT, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`building the console failed:\n${result.stdout}\n${result.stderr}`)
  } finally {
    rmSync(LOCK, { recursive: true, force: true })
  }
}

function statSafe(target: string): number | undefined {
  try {
    return statSync(target).mtimeMs
  } catch {
    return undefined
  }
}
