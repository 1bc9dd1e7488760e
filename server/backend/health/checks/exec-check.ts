import { spawn } from 'node:child_process'
import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { envValue } from './check-inputs.ts'

const MAX_OUTPUT_BYTES = 1024 * 1024

/**
 * What a script inherits from the server: enough to find programs and a home, nothing else.
 * The server's environment holds its database URL, bootstrap token and mail credentials; a
 * script gets only these and the `env` its own spec sets.
 */
const INHERITED = ['PATH', 'HOME', 'LANG'] as const
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

export function execEnvironment(specEnv: Record<string, string>, source: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_PATH }
  for (const name of INHERITED) {
    const value = source[name]
    if (value) env[name] = value
  }
  return { ...env, ...specEnv }
}

export type ScriptOutcome = {
  command: string
  args: string[]
  code: number | null
  signal: string | null
  stdout: string
  stderr: string
  launchError?: string
}

/**
 * Runs a script under bash (or its shebang's interpreter) with only `env` and the inherited
 * basics; stdout and stderr captured (1 MiB each) and trimmed. The process group is killed when
 * `signal` aborts, so a hung child of the script cannot outlive its caller. Exec checks and exec
 * scrapers both start their scripts here.
 */
export async function runScript(script: string, env: Record<string, string>, signal: AbortSignal): Promise<ScriptOutcome> {
  const shebang = /^#!\s*(\S+)(?:\s+(.*))?/.exec(script)
  const [command, args] = shebang
    ? [shebang[1]!, [...(shebang[2] ? shebang[2].split(/\s+/) : []), '-c', script.slice(script.indexOf('\n') + 1)]]
    : ['bash', ['-c', script]]
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: execEnvironment(env) as NodeJS.ProcessEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    const out: Buffer[] = []
    const err: Buffer[] = []
    let outSize = 0
    let errSize = 0
    child.stdout.on('data', (chunk: Buffer) => { if ((outSize += chunk.length) <= MAX_OUTPUT_BYTES) out.push(chunk) })
    child.stderr.on('data', (chunk: Buffer) => { if ((errSize += chunk.length) <= MAX_OUTPUT_BYTES) err.push(chunk) })
    const kill = () => { try { if (child.pid) process.kill(-child.pid, 'SIGKILL') } catch { /* already gone */ } }
    if (signal.aborted) kill()
    signal.addEventListener('abort', kill, { once: true })
    child.once('error', (error) => resolve({ command, args, code: null, signal: null, stdout: '', stderr: '', launchError: error.message }))
    child.once('close', (code, exitSignal) => {
      signal.removeEventListener('abort', kill)
      resolve({ command, args, code, signal: exitSignal, stdout: Buffer.concat(out).toString('utf8').trim(), stderr: Buffer.concat(err).toString('utf8').trim() })
    })
  })
}

/**
 * `exec` (§1.7.5): the script runs under bash (or its shebang's interpreter); stdout and stderr
 * are captured (1 MiB each) and trimmed. The process group is killed on timeout so a hung child
 * of the script cannot outlive the check.
 */
export const runExecCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  // Writing exec needs the exec permission; this catches specs that reached the table some other
  // way (direct SQL); canaries that existed at upgrade were trusted as they stood (0160).
  if (await context.targets?.isRestricted()) {
    return [invalidResult(result, 'exec checks run only for canaries written by someone holding the exec permission; ask an admin to save this canary')]
  }
  const script = String(spec.script ?? '')
  const env: Record<string, string> = {}
  try {
    for (const [index, entry] of ((spec.env as EnvVar[] | undefined) ?? []).entries()) {
      if (typeof entry !== 'object' || !entry.name) return [invalidResult(result, `env[${index}].name is required`)]
      env[entry.name] = envValue(entry, `env[${index}]`) ?? ''
    }
  } catch (error) {
    return [invalidResult(result, (error as Error).message)]
  }
  const started = performance.now()
  const outcome = await runScript(script, env, context.signal)
  const { command, args } = outcome
  result.duration = Math.round(performance.now() - started)
  if (outcome.launchError) return [failResult(result, outcome.launchError)]
  const exitCode = outcome.code ?? -1
  const detail = { stdout: outcome.stdout, stderr: outcome.stderr, exitCode, path: command, args }
  result.data = { ...detail, results: detail }
  result.detail = detail
  if (context.signal.aborted) return [failResult(result, `timed out after ${Math.round(context.timeoutMs / 1000)}s (killed)`)]
  if (exitCode !== 0) failResult(result, outcome.stderr || `exit code ${exitCode}`)
  return [result]
}
