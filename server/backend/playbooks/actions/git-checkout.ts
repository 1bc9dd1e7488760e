import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { runScript } from '#server/backend/health/checks/exec-check.ts'
import { findConnection } from '#server/backend/health/checks/check-inputs.ts'
import type { ActionContext } from '../playbook-model.ts'
import { redactSecrets } from '#server/backend/secrets/sealed-secrets.ts'
import { ActionInputError, envVarValue, objectOf, playbookNamespace, stringOf } from './action-access.ts'

/**
 * `exec.checkout` (resource-specs §1.7.5): the repository is cloned into the action's working
 * directory before the script runs, with the machine's own `git`. Credentials never reach git's
 * argv or the URL: a password is handed over by an askpass script reading the environment, and a
 * `certificate` (an SSH private key) by GIT_SSH_COMMAND, both from the private directory beside
 * the working directory. A relative `destination` clones into that folder of the working
 * directory instead; the answer is the folder the script starts in.
 */
export async function checkoutRepository(raw: unknown, context: ActionContext, workdir: string, privateDir: string): Promise<string> {
  const spec = objectOf(raw)
  const field = 'exec.checkout'
  const ref = stringOf(spec.connection).trim()
  const stored = ref ? await findConnection(context.db, ref, playbookNamespace(context)) : null
  if (ref && !stored) throw new ActionInputError(`${field}: connection ${ref} was not found`)
  const url = envVarValue(spec.url, `${field}.url`) || stored?.url || ''
  if (!url) throw new ActionInputError(`${field}.url is required (or a connection with a URL)`)
  const type = stringOf(spec.type).trim().toLowerCase()
  if (type && type !== 'git' && type !== 'github' && type !== 'gitlab' && type !== 'azuredevops') {
    throw new ActionInputError(`${field}.type ${JSON.stringify(spec.type)} is not a git repository type`)
  }
  const username = envVarValue(spec.username, `${field}.username`) || stored?.username || ''
  const password = envVarValue(spec.password, `${field}.password`) || stored?.password || ''
  const certificate = envVarValue(spec.certificate, `${field}.certificate`) || ''
  const branch = stringOf(spec.branch).trim()
  const depth = spec.depth === undefined || spec.depth === null || spec.depth === '' ? null : Number(spec.depth)
  if (depth !== null && (!Number.isInteger(depth) || depth < 1)) throw new ActionInputError(`${field}.depth must be a positive whole number`)

  const destination = stringOf(spec.destination).trim()
  const target = path.resolve(workdir, destination || '.')
  if (path.isAbsolute(destination) || (target !== workdir && !target.startsWith(`${workdir}${path.sep}`))) {
    throw new ActionInputError(`${field}.destination must be a folder inside the action's working directory`)
  }
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' }
  if (username || password) {
    const askpass = path.join(privateDir, 'git-askpass')
    // git asks "Username for ..." then "Password for ..."; the answers come from the environment.
    await writeFile(askpass, '#!/bin/sh\ncase "$1" in\n  Username*) printf "%s" "$LOOKOUT_GIT_USERNAME" ;;\n  *) printf "%s" "$LOOKOUT_GIT_PASSWORD" ;;\nesac\n', { mode: 0o700 })
    env.GIT_ASKPASS = askpass
    env.LOOKOUT_GIT_USERNAME = username
    env.LOOKOUT_GIT_PASSWORD = password
  }
  if (certificate) {
    const key = path.join(privateDir, 'git-ssh-key')
    await writeFile(key, certificate.endsWith('\n') ? certificate : `${certificate}\n`, { mode: 0o600 })
    env.GIT_SSH_COMMAND = `ssh -i ${quoted(key)} -o IdentitiesOnly=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=${quoted(path.join(privateDir, 'known_hosts'))}`
  }
  const options = [...(branch ? ['--branch', branch] : []), ...(depth !== null ? ['--depth', String(depth)] : [])]
  const command = `cd -- ${quoted(workdir)} && git clone --quiet ${options.map(quoted).join(' ')} -- ${quoted(url)} ${quoted(target)}`
  const outcome = await runScript(command, env, context.signal)
  const secrets = [...context.env.secrets, ...[password, certificate].filter(Boolean)]
  if (outcome.launchError) throw new ActionInputError(`${field}: git could not be started: ${outcome.launchError}`)
  if (outcome.code !== 0) {
    const reason = redactSecrets(outcome.stderr || `exit code ${outcome.code ?? outcome.signal}`, secrets)
    throw new ActionInputError(`${field}: cloning ${redactSecrets(url, secrets)}${branch ? ` (branch ${branch})` : ''} failed: ${reason}`)
  }
  return target
}

export function quoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}
