import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { envValue } from '#server/backend/health/checks/check-inputs.ts'
import { runScript } from '#server/backend/health/checks/exec-check.ts'
import type { ScrapedDocument, ScraperSource } from './scraper-source.ts'

/**
 * `exec`: runs the entry's `script` (as exec checks do: bash or the shebang's interpreter, only
 * the spec's `env`, the process group killed on timeout) and reads its stdout as JSON. A top-level list is one config per element unless `items` splits it.
 * Storing or running an exec scraper needs the exec permission (rbac/exec-permission.ts).
 */
export const execSource: ScraperSource = {
  kind: 'exec',
  async fetch(entry, context) {
    const script = typeof entry.script === 'string' ? entry.script : ''
    if (!script) throw new Error('exec scraper: script is required')
    // Storing exec needs the exec permission; this catches specs that reached the table some other
    // way or were edited since by someone without it (as exec checks do).
    if (await context.targets?.isRestricted()) {
      throw new Error('exec scrapers run only when someone holding the exec permission wrote the spec; ask an admin to save this scraper')
    }
    const env: Record<string, string> = {}
    for (const [index, variable] of ((entry.env as EnvVar[] | undefined) ?? []).entries()) {
      if (typeof variable !== 'object' || !variable.name) throw new Error(`exec scraper: env[${index}].name is required`)
      env[variable.name] = envValue(variable, `env[${index}]`) ?? ''
    }
    const outcome = await runScript(script, env, context.signal)
    if (context.signal.aborted) throw new Error('exec scraper: timed out (the script was killed)')
    if (outcome.launchError) throw new Error(`exec scraper: ${outcome.launchError}`)
    if (outcome.code !== 0) throw new Error(`exec scraper: exit code ${outcome.code ?? outcome.signal}${outcome.stderr ? `: ${outcome.stderr.slice(0, 2000)}` : ''}`)
    if (outcome.stdout === '') return []
    let output: unknown
    try {
      output = JSON.parse(outcome.stdout)
    } catch (error) {
      throw new Error(`exec scraper: stdout is not JSON (${(error as Error).message}): ${outcome.stdout.slice(0, 200)}`)
    }
    const source = 'exec'
    if (Array.isArray(output) && typeof entry.items !== 'string') {
      return output.map((config, index): ScrapedDocument => ({ config, source: `${source}[${index}]` }))
    }
    return [{ config: output, source }]
  },
}
