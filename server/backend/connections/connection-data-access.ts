import type { NextFunction, Request, Response } from 'express'
import type { Queryable } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { subjectOf } from '#server/backend/rbac/exec-permission.ts'
import { isUuid } from '#contract/uuid.ts'
import { maskConnectionRow, openConnectionRow, sealConnectionRow } from './connection-secrets.ts'

/**
 * The data API's view of `connections` secrets: the write hook seals them before they are
 * stored, and the read transform opens them for a caller who may edit the connection and masks
 * them (`***`) for anyone else.
 */

/** The `/db` write hook for `connections`: password, certificate, secret properties and URL secrets are sealed. */
export async function connectionWriteValidator(input: ValidateWriteInput): Promise<ValidateWriteResult> {
  if (input.relation !== 'connections' || input.method === 'DELETE') return { ok: true }
  const knownType = input.method === 'PATCH' ? await typeOfTarget(input.db, input.req) : undefined
  const rows = await Promise.all(input.rows.map((row) => sealConnectionRow(input.db, row, knownType)))
  return { ok: true, rows }
}

/** A PATCH that names one row (`?id=eq.<uuid>`) without sending its type: the stored type, so the type's secret fields are known. */
async function typeOfTarget(db: Queryable, req: Request): Promise<string | undefined> {
  const filter = req.query.id
  if (typeof filter !== 'string' || !filter.startsWith('eq.') || !isUuid(filter.slice(3))) return undefined
  const { rows } = await db.query<{ type: string }>('SELECT type FROM connections WHERE id = $1', [filter.slice(3)])
  return rows[0]?.type
}

type Row = Record<string, unknown>

/**
 * Mounted on `/db/connections` before the data API: the JSON body the data API answers (reads,
 * and writes with `return=representation`) is rewritten before it leaves. The router builds
 * bodies in SQL and ends the response once, so `res.end` is the one place to catch them. CSV
 * bodies and embeds of `connections` under other relations are not rewritten: they carry the
 * sealed values, never the clear ones.
 */
export function createConnectionReadTransform(options: { db: Queryable; authorizer: Authorizer }) {
  const { db, authorizer } = options
  return (req: Request, res: Response, next: NextFunction): void => {
    const principal = res.locals.principal as Principal | undefined
    const originalEnd = res.end.bind(res) as (...args: unknown[]) => Response
    let rewritten = false
    res.end = ((...args: unknown[]) => {
      const [chunk] = args
      const contentType = String(res.getHeader('Content-Type') ?? '')
      if (rewritten || res.statusCode >= 300 || !contentType.includes('json') || (typeof chunk !== 'string' && !Buffer.isBuffer(chunk))) {
        return originalEnd(...args)
      }
      rewritten = true
      void rewriteBody(chunk.toString(), principal).then(
        (body) => {
          res.setHeader('Content-Length', Buffer.byteLength(body))
          originalEnd(body)
        },
        (error: unknown) => {
          req.log?.error({ err: error }, 'connection secrets could not be masked')
          // Never fall back to the unrewritten body: it may hold secrets the caller may not see.
          res.statusCode = 500
          const body = JSON.stringify({ code: 'XX000', message: 'connection secrets could not be read', details: null, hint: null })
          res.setHeader('Content-Length', Buffer.byteLength(body))
          originalEnd(body)
        },
      )
      return res
    }) as Response['end']
    next()
  }

  async function rewriteBody(body: string, principal: Principal | undefined): Promise<string> {
    const parsed = JSON.parse(body) as unknown
    const decisions = new Map<string, Promise<boolean>>()
    const mayEdit = (row: Row): Promise<boolean> => {
      if (!principal) return Promise.resolve(false)
      const key = typeof row.id === 'string' ? row.id : ''
      let decision = decisions.get(key)
      if (!decision) {
        const resource = key
          ? { kind: 'connection' as const, id: key, ...(typeof row.name === 'string' ? { name: row.name } : {}), ...(typeof row.namespace === 'string' ? { namespace: row.namespace } : {}), ...(typeof row.type === 'string' ? { type: row.type } : {}) }
          : undefined
        decision = authorizer.authorize(subjectOf(principal), { object: 'connection', action: 'update', resource }).then((answer) => answer.allowed)
        decisions.set(key, decision)
      }
      return decision
    }
    const rewrite = async (row: unknown): Promise<unknown> => {
      if (!row || typeof row !== 'object' || Array.isArray(row)) return row
      if (!(await mayEdit(row as Row))) return maskConnectionRow(row as Row)
      // A value sealed under another key cannot be opened: the editor sees it masked, not an error.
      return openConnectionRow(db, row as Row).catch(() => maskConnectionRow(row as Row))
    }
    const out = Array.isArray(parsed) ? await Promise.all(parsed.map(rewrite)) : await rewrite(parsed)
    return JSON.stringify(out)
  }
}
