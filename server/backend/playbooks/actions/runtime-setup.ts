import { runScript } from '#server/backend/health/checks/exec-check.ts'
import type { ActionContext } from '../playbook-model.ts'
import { ActionInputError, objectOf, stringOf } from './action-access.ts'

/** The runtimes `exec.setup` names, and the commands that provide each. */
const RUNTIMES: Record<string, readonly string[]> = {
  bun: ['bun'],
  python: ['python3', 'python'],
  powershell: ['pwsh'],
}

/**
 * `exec.setup` (resource-specs §1.7.5) installs runtimes where the platform's runner may download
 * them. This machine's runner does not download: it uses the runtime when the server has it (at
 * the version asked, when one is), and otherwise fails the action saying what to install.
 */
export async function checkRuntimes(raw: unknown, context: ActionContext): Promise<void> {
  for (const [runtime, value] of Object.entries(objectOf(raw))) {
    if (value === undefined || value === null || value === false) continue
    const field = `exec.setup.${runtime}`
    const commands = RUNTIMES[runtime]
    if (!commands) throw new ActionInputError(`${field}: unknown runtime (setup knows ${Object.keys(RUNTIMES).join(', ')})`)
    const wanted = stringOf(objectOf(value).version).trim().replace(/^v/, '')
    const probe = await runScript(
      `for c in ${commands.join(' ')}; do if command -v "$c" >/dev/null 2>&1; then "$c" --version 2>&1 | head -n 1; exit 0; fi; done; exit 127`,
      {},
      context.signal,
    )
    if (probe.code !== 0) throw new ActionInputError(`${field}: ${commands[0]} is not installed on this server (Lookout does not download runtimes; install it where the playbook runner runs)`)
    if (wanted && wanted !== 'latest') {
      const installed = /\d+(?:\.\d+)*/.exec(probe.stdout)?.[0] ?? ''
      if (installed !== wanted && !installed.startsWith(`${wanted}.`)) {
        throw new ActionInputError(`${field}: version ${wanted} was asked, this server has ${installed || 'an unknown version'} (Lookout does not download runtimes)`)
      }
    }
  }
}
