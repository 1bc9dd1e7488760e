import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { glob } from 'tinyglobby'
import { runScript } from '#server/backend/health/checks/exec-check.ts'
import type { ActionContext, ActionOutcome, ArtifactInput } from '../playbook-model.ts'
import { redactSecrets } from '#server/backend/secrets/sealed-secrets.ts'
import { ActionInputError, envVarValue, objectOf, playbookNamespace, stringOf } from './action-access.ts'
import { findConnection } from '#server/backend/health/checks/check-inputs.ts'
import { openValue } from '#server/backend/connections/connection-secrets.ts'
import { checkoutRepository, quoted } from './git-checkout.ts'
import { checkRuntimes } from './runtime-setup.ts'

/**
 * `exec` (resource-specs §2.5, §1.7.5): the script runs under bash (or its shebang's interpreter)
 * through runScript, as exec checks do: only PATH/HOME/LANG of the server's environment plus the
 * action's `env` and its `connections`' credentials. stdout and stderr are captured by runScript
 * up to 1 MiB each (MAX_OUTPUT_BYTES in health/checks/exec-check.ts) and trimmed; secret
 * parameters in them become [REDACTED]. Each run gets its own working directory, removed after,
 * into which `checkout` clones the repository (git-checkout.ts) once `setup`'s runtimes are found
 * (runtime-setup.ts); `artifacts` globs are read from where the script starts (or are absolute), at most MAX_ARTIFACTS files of
 * MAX_ARTIFACT_BYTES each, plus `/dev/stdout` and `/dev/stderr`.
 */
const MAX_ARTIFACTS = 50
const MAX_ARTIFACT_BYTES = 10 * 1024 * 1024

const CONTENT_TYPES: Record<string, string> = {
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.sh': 'text/x-shellscript',
  '.sql': 'application/sql',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.gz': 'application/gzip',
  '.zip': 'application/zip',
}

type ConnectionEnv = { env: Record<string, string>; files: { name: string; content: string; variable: string }[] }

async function storedConnection(context: ActionContext, ref: string, field: string) {
  const found = await findConnection(context.db, ref, playbookNamespace(context))
  if (!found) throw new ActionInputError(`${field}: connection ${ref} was not found`)
  // The kubeconfig or service-account key of kubernetes and gcp connections is kept as the certificate.
  const { rows } = await context.db.query<{ certificate: string | null }>('SELECT certificate FROM connections WHERE id = $1', [found.id])
  const certificate = rows[0]?.certificate ?? null
  return { ...found, certificate: certificate === null ? null : await openValue(context.db, certificate) }
}

/**
 * `connections` inject credentials the way the platform's CLIs read them: aws as the AWS_*
 * variables, azure as AZURE_*, gcp as a key file named by GOOGLE_APPLICATION_CREDENTIALS and
 * kubernetes as a kubeconfig named by KUBECONFIG. Each takes a stored `connection` or inline
 * fields. The others need a cluster identity this Lookout does not have.
 */
async function connectionEnv(connections: Record<string, unknown>, context: ActionContext): Promise<ConnectionEnv> {
  const out: ConnectionEnv = { env: {}, files: [] }
  for (const [kind, raw] of Object.entries(connections)) {
    if (raw === undefined || raw === null || raw === false) continue
    const spec = objectOf(raw)
    const field = `connections.${kind}`
    const ref = stringOf(spec.connection).trim()
    const stored = ref ? await storedConnection(context, ref, field) : null
    const value = (key: string, ...fallbacks: (string | null | undefined)[]) =>
      envVarValue(spec[key], `${field}.${key}`) || fallbacks.find((entry) => entry) || ''
    const properties = stored?.properties ?? {}
    switch (kind) {
      case 'aws': {
        const set = (name: string, text: string) => {
          if (text) out.env[name] = text
        }
        set('AWS_ACCESS_KEY_ID', value('accessKey', stored?.username, stringOf(properties.accessKey)))
        set('AWS_SECRET_ACCESS_KEY', value('secretKey', stored?.password, stringOf(properties.secretKey)))
        set('AWS_SESSION_TOKEN', value('sessionToken', stringOf(properties.sessionToken)))
        const region = value('region', stringOf(properties.region))
        set('AWS_REGION', region)
        set('AWS_DEFAULT_REGION', region)
        set('AWS_ENDPOINT_URL', value('endpoint', stringOf(spec.url), stored?.url))
        set('AWS_PROFILE', value('profile', stringOf(properties.profile)))
        break
      }
      case 'azure': {
        out.env.AZURE_CLIENT_ID = value('clientID', stored?.username, stringOf(properties.clientID))
        out.env.AZURE_CLIENT_SECRET = value('clientSecret', stored?.password, stringOf(properties.clientSecret))
        out.env.AZURE_TENANT_ID = value('tenantID', stringOf(properties.tenantID), stringOf(properties.tenant))
        break
      }
      case 'gcp': {
        const credentials = value('credentials', stored?.certificate, stored?.password)
        if (!credentials) throw new ActionInputError(`${field}: credentials (a service account key) are required`)
        out.files.push({ name: 'gcp-credentials.json', content: credentials, variable: 'GOOGLE_APPLICATION_CREDENTIALS' })
        const project = value('project', stringOf(properties.project))
        if (project) out.env.CLOUDSDK_CORE_PROJECT = project
        break
      }
      case 'kubernetes': {
        const kubeconfig = value('kubeconfig', stored?.certificate)
        if (!kubeconfig) throw new ActionInputError(`${field}: a kubeconfig (inline kubeconfig or a kubernetes connection) is required`)
        out.files.push({ name: 'kubeconfig', content: kubeconfig, variable: 'KUBECONFIG' })
        break
      }
      default:
        throw new ActionInputError(`${field} is not supported here: exec connections may be aws, azure, gcp or kubernetes (${kind} needs a Kubernetes identity this Lookout does not have)`)
    }
  }
  return out
}

async function collectArtifacts(patterns: unknown, workdir: string, stdout: string, stderr: string): Promise<ArtifactInput[]> {
  if (!Array.isArray(patterns)) return []
  const artifacts: ArtifactInput[] = []
  for (const [index, entry] of patterns.entries()) {
    const pattern = stringOf(objectOf(entry).path ?? entry).trim()
    if (!pattern) throw new ActionInputError(`artifacts[${index}].path is required`)
    if (pattern === '/dev/stdout' || pattern === '/dev/stderr') {
      const content = pattern === '/dev/stdout' ? stdout : stderr
      artifacts.push({ path: pattern, filename: pattern === '/dev/stdout' ? 'stdout.txt' : 'stderr.txt', contentType: 'text/plain', content: Buffer.from(content) })
      continue
    }
    const absolute = path.isAbsolute(pattern)
    const files = await glob([absolute ? pattern.slice(1) : pattern], { cwd: absolute ? '/' : workdir, absolute: true, onlyFiles: true, dot: true })
    for (const file of files.sort()) {
      if (artifacts.length >= MAX_ARTIFACTS) throw new ActionInputError(`artifacts: more than ${MAX_ARTIFACTS} files matched`)
      const size = (await stat(file)).size
      if (size > MAX_ARTIFACT_BYTES) throw new ActionInputError(`artifact ${file} is ${size} bytes, more than the ${MAX_ARTIFACT_BYTES} an artifact may hold`)
      artifacts.push({
        path: absolute ? file : path.relative(workdir, file),
        filename: path.basename(file),
        contentType: CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        content: await readFile(file),
      })
    }
  }
  return artifacts
}

export async function runExecAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  // Writing an exec action needs the exec permission; this catches specs that reached the table
  // some other way or were edited since by someone without it, as exec checks do.
  if (!context.trusted) {
    return { result: {}, error: 'exec actions run only for playbooks written by someone holding the exec permission; ask an admin to save this playbook' }
  }
  const script = stringOf(spec.script)
  if (script.trim() === '') return { result: {}, error: 'exec.script is required' }
  const env: Record<string, string> = {}
  const list = spec.env === undefined ? [] : spec.env
  if (!Array.isArray(list)) return { result: {}, error: 'exec.env must be a list of {name, value}' }
  for (const [index, entry] of list.entries()) {
    const variable = objectOf(entry)
    if (!variable.name) return { result: {}, error: `exec.env[${index}].name is required` }
    env[String(variable.name)] = envVarValue(variable, `exec.env[${index}]`) ?? ''
  }
  const workdir = await mkdtemp(path.join(tmpdir(), 'lookout-playbook-'))
  // Credential files and a shebang script's body live beside the working directory, not in it,
  // so artifact globs never pick them up.
  const privateDir = await mkdtemp(path.join(tmpdir(), 'lookout-playbook-private-'))
  try {
    if (spec.setup !== undefined && spec.setup !== null) await checkRuntimes(spec.setup, context)
    const startIn = spec.checkout !== undefined && spec.checkout !== null ? await checkoutRepository(spec.checkout, context, workdir, privateDir) : workdir
    const connections = await connectionEnv(objectOf(spec.connections), context)
    for (const file of connections.files) {
      const target = path.join(privateDir, file.name)
      await writeFile(target, file.content, { mode: 0o600 })
      connections.env[file.variable] = target
    }
    const shebang = /^#!\s*(\S+)(?:[ \t]+([^\n]*))?/.exec(script)
    let command: string
    let args: string[]
    let wrapped: string
    if (shebang) {
      // runScript hands a shebang script's body to its interpreter with -c; here it runs from a
      // file instead, so the interpreter starts in the working directory like a bash script does.
      const body = path.join(privateDir, 'script')
      await writeFile(body, script, { mode: 0o700 })
      command = shebang[1]!
      args = [...(shebang[2] ? shebang[2].trim().split(/\s+/) : []), body]
      wrapped = `cd -- ${quoted(startIn)} || exit 1; exec ${[command, ...args].map(quoted).join(' ')}`
    } else {
      command = 'bash'
      args = ['-c', script]
      // On the script's first line, so bash's line numbers in errors stay the script's own.
      wrapped = `cd -- ${quoted(startIn)} || exit 1; ${script}`
    }
    const outcome = await runScript(wrapped, { ...connections.env, ...env }, context.signal)
    const secrets = context.env.secrets
    const stdout = redactSecrets(outcome.stdout, secrets)
    const stderr = redactSecrets(outcome.stderr, secrets)
    if (outcome.launchError) return { result: { stdout, stderr, exitCode: -1, path: command, args }, error: outcome.launchError }
    const exitCode = outcome.code ?? -1
    const result = { stdout, stderr, exitCode, path: command, args: args.map((arg) => redactSecrets(arg, secrets)) }
    if (context.signal.aborted) return { result, error: 'the script was killed (the action was stopped)' }
    const artifacts = await collectArtifacts(spec.artifacts, startIn, stdout, stderr)
    if (exitCode !== 0) {
      return { result, error: stderr || (outcome.signal ? `killed by ${outcome.signal}` : `exit code ${exitCode}`), ...(artifacts.length ? { artifacts } : {}) }
    }
    return { result, ...(artifacts.length ? { artifacts } : {}) }
  } finally {
    await rm(workdir, { recursive: true, force: true })
    await rm(privateDir, { recursive: true, force: true })
  }
}
