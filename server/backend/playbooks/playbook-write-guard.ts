import type { NextFunction, Request, Response } from 'express'
import type { Queryable } from '#server/db/client.ts'
import { parsePlaybookSpec, PLAYBOOK_VALIDATION_PREFIX, playbookColumnsOf, playbookReadOnlyReason, webhookPathOf } from '#contract/playbook/playbook-document.ts'
import { isUuid } from '#contract/uuid.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { AuthorizeRequest, AuthorizeResult, ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { holdsExec, subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'

/**
 * The playbook write guard of http-api §4.6, in front of the data API's `playbooks` table:
 * POST, PATCH and DELETE are judged here before the PostgREST router builds any SQL, and a
 * refusal is the plain application shape `{"error": "..."}` (400, or 409 for a playbook that
 * belongs to another source).
 *
 * `lookout apply -f` is the one writer of file-sourced playbooks: it says so with
 * `X-Lookout-Source: ConfigFile`, which lets it create them (source ConfigFile) and change or
 * delete the ConfigFile ones, as the Kubernetes operator owns its KubernetesCRD playbooks. It
 * is not a permission (the caller still needs playbooks:create/update); it keeps the console
 * from editing what the next apply would overwrite, and the applier from taking over what the
 * console or the cluster owns.
 */

export const PLAYBOOK_SOURCE_HEADER = 'x-lookout-source'
const FILE_SOURCE = 'ConfigFile'
const UI_SOURCE = 'UI'

export const PLAYBOOK_GUARD_MESSAGES = {
  exactId: 'playbook mutations require an exact id filter',
  invalidId: 'invalid playbook id',
  upsert: 'upserts are not supported for playbooks',
  specRequired: 'playbook spec is required',
  notApi: playbookReadOnlyReason,
  source: (source: unknown) => `playbook source must be ${UI_SOURCE}, not ${JSON.stringify(source)}`,
  sourceChange: 'playbook source cannot be changed',
  webhookInUse: (path: string, owner: string) => `${PLAYBOOK_VALIDATION_PREFIX}spec.on.webhook.path: "${path}" is already served by playbook ${owner}`,
  body: 'a playbook write needs a JSON object (or, for POST, a list of them)',
  tooLarge: 'request body too large',
} as const

// Query parameters that shape a write's answer; any other names a row filter.
const NON_FILTER_PARAMS = new Set(['select', 'columns', 'order', 'limit', 'offset', 'on_conflict'])
const ACTIONS = { POST: 'create', PATCH: 'update', DELETE: 'delete' } as const

class GuardRefusal extends Error {
  constructor(
    readonly status: 400 | 409 | 413,
    message: string,
  ) {
    super(message)
  }
}

type StoredPlaybook = { id: string; namespace: string; name: string; source: string }

/** The one id a PATCH or DELETE names (`id=eq.<uuid>`), or the refusal. */
function exactId(req: Request): string {
  const search = new URL(req.originalUrl, 'http://guard.invalid').searchParams
  const filters = [...search.entries()].filter(([key]) => !NON_FILTER_PARAMS.has(key))
  if (filters.length !== 1) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.exactId)
  const [key, value] = filters[0]!
  if (key !== 'id' || !value.startsWith('eq.')) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.exactId)
  const id = value.slice('eq.'.length)
  if (!isUuid(id)) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.invalidId)
  return id
}

async function readText(req: Request, limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string)
    size += buffer.length
    if (size > limit) throw new GuardRefusal(413, PLAYBOOK_GUARD_MESSAGES.tooLarge)
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The owner of a webhook path among live playbooks other than `exceptId`, as `ns/name`. */
async function webhookOwner(db: Queryable, path: string, exceptId: string | null): Promise<string | null> {
  const { rows } = await db.query<{ namespace: string; name: string }>(
    `SELECT namespace, name FROM playbooks
     WHERE deleted_at IS NULL AND spec -> 'on' -> 'webhook' ->> 'path' = $1 AND ($2::uuid IS NULL OR id <> $2::uuid)
     LIMIT 1`,
    [path, exceptId],
  )
  return rows[0] ? `${rows[0].namespace}/${rows[0].name}` : null
}

function checkSpec(spec: unknown): void {
  const verdict = parsePlaybookSpec(spec)
  if (!verdict.success) throw new GuardRefusal(400, verdict.message)
}

export function createPlaybookWriteGuard(options: {
  db: Queryable
  /** The data API's authorization: a caller it refuses is left to the router, which answers as for any table. */
  authorize: (request: AuthorizeRequest) => Promise<AuthorizeResult>
  maxBodyBytes?: number
}) {
  const { db } = options
  const limit = options.maxBodyBytes ?? 10 * 1024 * 1024

  async function judge(req: Request, method: keyof typeof ACTIONS): Promise<void> {
    const header = req.get(PLAYBOOK_SOURCE_HEADER)
    if (header !== undefined && header !== FILE_SOURCE) throw new GuardRefusal(400, `${PLAYBOOK_SOURCE_HEADER} may only be ${FILE_SOURCE}`)
    // The source this writer owns: the console's UI, or the applier's files.
    const writerSource = header === FILE_SOURCE ? FILE_SOURCE : UI_SOURCE

    let stored: StoredPlaybook | null = null
    if (method !== 'POST') {
      const id = exactId(req)
      stored = (await db.query<StoredPlaybook>('SELECT id, namespace, name, source::text AS source FROM playbooks WHERE id = $1', [id])).rows[0] ?? null
      // Nothing to change: the router answers as PostgREST does for a filter that matches no row.
      if (!stored) return
      if (stored.source !== writerSource) throw new GuardRefusal(409, PLAYBOOK_GUARD_MESSAGES.notApi(stored.namespace, stored.name))
      if (method === 'DELETE') return
    } else {
      const prefer = (req.get('prefer') ?? '').toLowerCase()
      if (/resolution\s*=\s*(merge|ignore)-duplicates/.test(prefer)) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.upsert)
    }

    const text = await readText(req, limit)
    // The router reads the body from here (the stream is spent).
    ;(req as { body?: unknown }).body = text
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return // The router answers a body that is not JSON in PostgREST's words.
    }
    const rows = Array.isArray(body) && method === 'POST' ? body : [body]
    if (!rows.every(isRecord)) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.body)

    const paths = new Map<string, number>()
    for (const [index, row] of (rows as Record<string, unknown>[]).entries()) {
      if (method === 'POST') {
        if (row.source !== undefined && row.source !== null && row.source !== writerSource) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.source(row.source))
        if (row.spec === undefined || row.spec === null) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.specRequired)
      } else if ('source' in row && row.source !== stored!.source) {
        throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.sourceChange)
      }
      if (!('spec' in row)) continue
      checkSpec(row.spec)
      const path = webhookPathOf(row.spec)
      if (!path) continue
      const earlier = paths.get(path)
      if (earlier !== undefined) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.webhookInUse(path, `[${earlier}] of this request`))
      paths.set(path, index)
      const owner = await webhookOwner(db, path, stored?.id ?? null)
      if (owner) throw new GuardRefusal(400, PLAYBOOK_GUARD_MESSAGES.webhookInUse(path, owner))
    }
  }

  /** Express middleware for `/db`: acts on `/playbooks` writes only. */
  return async function playbookWriteGuard(req: Request, res: Response, next: NextFunction): Promise<void> {
    const method = req.method as keyof typeof ACTIONS
    if (!(method in ACTIONS) || req.path.replace(/\/+$/, '') !== '/playbooks') return next()
    try {
      const verdict = await options.authorize({ relation: 'playbooks', kind: 'table', action: ACTIONS[method], related: false, req })
      if (!verdict.allowed) return next()
      await judge(req, method)
      next()
    } catch (error) {
      if (error instanceof GuardRefusal) {
        res.status(error.status).json({ error: error.message })
        return
      }
      next(error)
    }
  }
}

/**
 * The `/db` write hook's part for playbooks (after the exec check): a created playbook's
 * source defaults to UI (the applier's header makes it ConfigFile), and the spec an exec holder
 * writes is recorded as trusted, so the runner lets its actions reach what such a writer's could.
 */
export function createPlaybookWriteValidator(authorizer: Authorizer) {
  return async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    if (input.relation !== 'playbooks' || input.method === 'DELETE') return { ok: true }
    const principal = input.req.res?.locals.principal as Principal | undefined
    if (principal && input.rows.some((row) => 'spec' in row)) {
      const subject = subjectOf(principal)
      if (await holdsExec(authorizer, subject)) for (const row of input.rows) if ('spec' in row) await recordSpecTrust(input.db, row.spec, subject)
    }
    const storedName = input.method === 'PATCH' ? await patchedPlaybookName(input) : null
    const rows = input.rows.map((row) => withDisplayColumns(row, typeof row.name === 'string' ? row.name : storedName))
    if (input.method !== 'POST') return { ok: true, rows }
    const source = input.req.get(PLAYBOOK_SOURCE_HEADER) === FILE_SOURCE ? FILE_SOURCE : UI_SOURCE
    return { ok: true, rows: rows.map((row) => (row.source === undefined || row.source === null ? { ...row, source } : row)) }
  }
}

/** The name of the one playbook a PATCH names (the guard has already insisted on `id=eq.<uuid>`). */
async function patchedPlaybookName(input: ValidateWriteInput): Promise<string | null> {
  const id = new URL(input.req.originalUrl, 'http://guard.invalid').searchParams.get('id')?.replace(/^eq\./, '')
  if (!id || !isUuid(id)) return null
  const { rows } = await input.db.query<{ name: string }>('SELECT name FROM playbooks WHERE id = $1', [id])
  return rows[0]?.name ?? null
}

/**
 * Lists read title, category, icon and description from columns, so a write that changes the
 * spec brings them along; a column the writer sets itself is kept as sent.
 */
function withDisplayColumns(row: Record<string, unknown>, name: string | null): Record<string, unknown> {
  if (!isRecord(row.spec) || name === null) return row
  const mirrored: Record<string, unknown> = playbookColumnsOf(name, row.spec as Parameters<typeof playbookColumnsOf>[1])
  const filled = { ...row }
  for (const [column, value] of Object.entries(mirrored)) if (!(column in row)) filled[column] = value
  return filled
}
