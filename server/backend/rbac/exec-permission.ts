import { parse as parseYaml } from 'yaml'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { AccessSubject, Authorizer } from './authorizer.ts'

/**
 * Running a process on (or for) the server is its own permission: object `exec`, action
 * `exec:run`. The object lies outside the role matrix (area null, like `mcp`), so area grants
 * never reach it; the action is namespaced so the plain `read`/`create`/… grants every role
 * holds on `*` do not cover it either. Only `*` actions on `*` (admin) and stored permissions
 * naming `exec` (or `exec:*`) grant it.
 */
export const EXEC_OBJECT = 'exec'
export const EXEC_ACTION = 'exec:run'

export type ProcessResourceKind = 'canary' | 'topology' | 'scraper' | 'playbook'

/**
 * Spec keys that start a program, per resource (resource-specs.md). A key counts only when its
 * value is a list or an object, so a label or a plain `namespace: default` never does.
 * - canary (and topology, which embeds canary specs in components, lookups and properties):
 *   `exec`; `jmeter` (test plans carry scripts); `restic` (runs the restic binary); `junit`,
 *   `pod` and `namespace` (they start pods with a container spec of the author's choosing);
 * - scraper: `exec`, `playwright` (a browser running the author's script), `trivy` (runs the
 *   trivy binary with the author's arguments);
 * - playbook: `exec` actions and `pod` actions (a container running any command);
 * - everywhere: `checkout` (a clone that becomes the script's working directory) and `setup`
 *   (runtime installs).
 */
const CANARY_KEYS = ['exec', 'jmeter', 'restic', 'junit', 'pod', 'namespace']
const PROCESS_KEYS: Record<ProcessResourceKind, ReadonlySet<string>> = {
  canary: new Set([...CANARY_KEYS, 'checkout', 'setup']),
  topology: new Set([...CANARY_KEYS, 'checkout', 'setup']),
  scraper: new Set(['exec', 'playwright', 'trivy', 'checkout', 'setup']),
  playbook: new Set(['exec', 'pod', 'checkout', 'setup']),
}

const WHAT: Record<ProcessResourceKind, string> = {
  canary: 'exec checks',
  topology: 'exec checks',
  scraper: 'exec scrapers',
  playbook: 'exec actions',
}

export type ProcessPart = { path: string; key: string }

function isPopulated(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0
  return typeof value === 'object' && value !== null
}

/**
 * Every place in a spec that would start a process. A spec stored as text (YAML or JSON) is
 * read as such: a runner that later parses it must not find what this walk missed.
 */
export function processParts(kind: ProcessResourceKind, spec: unknown, base = 'spec'): ProcessPart[] {
  const keys = PROCESS_KEYS[kind]
  const found: ProcessPart[] = []
  const seen = new Set<unknown>()
  const walk = (value: unknown, path: string, depth: number) => {
    if (depth > 64 || value === null || typeof value !== 'object' || seen.has(value)) return
    seen.add(value)
    if (Array.isArray(value)) {
      value.forEach((item, index) => walk(item, `${path}[${index}]`, depth + 1))
      return
    }
    for (const [key, child] of Object.entries(value)) {
      const at = `${path}.${key}`
      if (keys.has(key) && isPopulated(child)) found.push({ path: at, key })
      walk(child, at, depth + 1)
    }
  }
  let root = spec
  if (typeof spec === 'string') {
    try {
      root = parseYaml(spec, { maxAliasCount: 100 })
    } catch {
      root = undefined
    }
  }
  walk(root, base, 0)
  return found
}

export function execDeniedMessage(kind: ProcessResourceKind, part: ProcessPart): string {
  const what = part.key === 'checkout' || part.key === 'setup' ? `${part.key} blocks` : part.key === 'exec' ? WHAT[kind] : `${part.key} ${kind === 'playbook' ? 'actions' : 'checks'}`
  return `${what} need the exec permission, which you do not hold (${part.path})`
}

export function subjectOf(principal: Principal): AccessSubject {
  return { personId: principal.personId, roles: principal.roles, via: principal.via }
}

export async function holdsExec(authorizer: Authorizer, subject: AccessSubject): Promise<boolean> {
  const decision = await authorizer.authorize(subject, { object: EXEC_OBJECT, area: null, action: EXEC_ACTION })
  return decision.allowed
}

/** The first process-starting part of a resource the subject may not write, or undefined. */
export async function execRefusal(
  authorizer: Authorizer,
  subject: AccessSubject,
  kind: ProcessResourceKind,
  spec: unknown,
  base?: string,
): Promise<string | undefined> {
  const parts = processParts(kind, spec, base)
  if (parts.length === 0) return undefined
  if (await holdsExec(authorizer, subject)) return undefined
  return execDeniedMessage(kind, parts[0]!)
}

const RELATION_KINDS: Record<string, ProcessResourceKind> = {
  canaries: 'canary',
  topologies: 'topology',
  config_scrapers: 'scraper',
  playbooks: 'playbook',
}

/**
 * The `/db` write hook: a canary, topology, scraper or playbook whose spec starts a process is
 * refused (403, nothing stored) unless the caller holds exec. A check row's `spec`/`type` is
 * normally derived from its canary; written directly it could turn any check into a script
 * (Run Now runs it), so writing either needs exec too. `onAllowedSpec` sees each canary spec
 * an exec holder writes (the check engine trusts those specs' network targets).
 */
export function createExecWriteValidator(
  authorizer: Authorizer,
  options: {
    onCanarySpec?: (spec: unknown, subject: AccessSubject, holdsExec: boolean) => Promise<void>
    /** Each scraper spec written: the scrape engine trusts the network targets of those an exec holder wrote. */
    onScraperSpec?: (spec: unknown, subject: AccessSubject, holdsExec: boolean) => Promise<void>
    /** Each topology spec written: its lookups and inline checks reach what an exec holder's could. */
    onTopologySpec?: (spec: unknown, subject: AccessSubject, holdsExec: boolean) => Promise<void>
  } = {},
) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.method === 'DELETE') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (!principal) return { ok: true }
    const subject = subjectOf(principal)
    const refuse = (message: string): ValidateWriteResult => ({ ok: false, status: 403, code: '42501', message })
    if (input.relation === 'checks') {
      for (const row of input.rows) {
        if (('spec' in row || 'type' in row) && !(await holdsExec(authorizer, subject))) {
          return refuse("a check's spec and type are written through its canary; writing them directly needs the exec permission, which you do not hold")
        }
      }
      return { ok: true }
    }
    const kind = RELATION_KINDS[input.relation]
    if (!kind) return { ok: true }
    for (const [index, row] of input.rows.entries()) {
      if (!('spec' in row)) continue
      const refusal = await execRefusal(authorizer, subject, kind, row.spec, input.rows.length > 1 ? `[${index}].spec` : 'spec')
      if (refusal) return refuse(refusal)
    }
    const onSpec = { canary: options.onCanarySpec, scraper: options.onScraperSpec, topology: options.onTopologySpec, playbook: undefined }[kind]
    if (onSpec) {
      const trusted = await holdsExec(authorizer, subject)
      for (const row of input.rows) if ('spec' in row) await onSpec(row.spec, subject, trusted)
    }
    return { ok: true }
  }
}
