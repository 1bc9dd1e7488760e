import type { Db, Queryable } from '#server/db/client.ts'
import { createAuthorizer, type AccessSubject, type Authorizer } from '#server/backend/rbac/authorizer.ts'
import { holdsExec } from '#server/backend/rbac/exec-permission.ts'
import { restrictedGuard, type AllowedTarget, type TargetGuard } from './checks/target-guard.ts'

/**
 * Whose canary may reach this server's own addresses (issue 10). Someone who may run shell
 * commands on the server (the exec permission) can reach anything the server can, so their
 * checks are not fenced in; everyone else's are. The mark is recorded per spec content, so a
 * later edit by anyone without exec (through any write path) leaves the spec untrusted.
 */
export type SpecWriter = 'server' | AccessSubject

const SERVER = 'server'

export async function recordSpecTrust(db: Queryable, spec: unknown, writer: SpecWriter): Promise<void> {
  if (spec === undefined || spec === null) return
  const person = writer === SERVER ? null : 'personId' in writer ? writer : null
  if (writer !== SERVER && !person) return
  await db.query(
    `INSERT INTO lookout.check_spec_trust (spec_hash, trusted_by, via, roles)
     VALUES (md5($1::jsonb::text), $2, $3, $4)
     ON CONFLICT (spec_hash, trusted_by) DO UPDATE SET via = EXCLUDED.via, roles = EXCLUDED.roles, recorded_at = now()`,
    [JSON.stringify(spec), person ? person.personId : SERVER, person?.via ?? null, person?.roles ?? []],
  )
}

export type CheckTrust = {
  /** Whether the canary's (or scraper's) current spec may reach this server's own and link-local addresses. */
  trusts(canaryId: string): Promise<boolean>
}

/**
 * Where the specs live: canaries for the check engine, config_scrapers for the scrape engine
 * (its http and sql sources connect like checks do), topologies for the topology engine (its
 * lookups and inline checks are canary specs), logging_backends for log searches (files and
 * Lookout's own tables only when trusted). All record trust the same way, per spec content.
 */
export type TrustedSpecRelation = 'canaries' | 'config_scrapers' | 'topologies' | 'playbooks' | 'logging_backends'
const TRUSTED_SPEC_RELATIONS: readonly TrustedSpecRelation[] = ['canaries', 'config_scrapers', 'topologies', 'playbooks', 'logging_backends']

/**
 * Answers are cached briefly (the authorizer caches policy for 3 s as well), so a spec change or
 * a lost grant takes effect within seconds in every process.
 */
export function createCheckTrust(options: { db: Queryable; authorizer: Authorizer; cacheTtlMs?: number; relation?: TrustedSpecRelation }): CheckTrust {
  // Interpolated into the statement below, so only the known relations pass.
  const relation: TrustedSpecRelation = TRUSTED_SPEC_RELATIONS.find((known) => known === options.relation) ?? 'canaries'
  const ttl = options.cacheTtlMs ?? 5_000
  const cache = new Map<string, { at: number; value: Promise<boolean> }>()

  async function decide(canaryId: string): Promise<boolean> {
    const { rows } = await options.db.query<{ trusted_by: string; via: string | null; roles: string[] | null }>(
      `SELECT t.trusted_by, t.via, t.roles FROM ${relation} c
       JOIN lookout.check_spec_trust t ON t.spec_hash = md5(c.spec::text)
       WHERE c.id = $1`,
      [canaryId],
    )
    if (rows.some((row) => row.trusted_by === SERVER)) return true
    for (const row of rows) {
      const subject: AccessSubject = { personId: row.trusted_by, roles: row.roles ?? [], ...(row.via ? { via: row.via } : {}) }
      if (await holdsExec(options.authorizer, subject)) return true
    }
    return false
  }

  return {
    trusts(canaryId) {
      const now = Date.now()
      const hit = cache.get(canaryId)
      if (hit && now - hit.at < ttl) return hit.value
      const value = decide(canaryId)
      cache.set(canaryId, { at: now, value })
      value.catch(() => cache.delete(canaryId))
      if (cache.size > 10_000) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      return value
    },
  }
}

/**
 * Each canary's fence: unrestricted when its spec is trusted, the restricted guard otherwise.
 * Lazy, so building a run's context stays synchronous; the trust lookup happens on the first
 * connection a check makes (and is cached across runs).
 */
export function createTargetFence(options: { db: Queryable; authorizer?: Authorizer; allowedTargets?: AllowedTarget[]; relation?: TrustedSpecRelation }) {
  const trust = createCheckTrust({ db: options.db, authorizer: options.authorizer ?? createAuthorizer(options.db as Db), relation: options.relation })
  const restricted = restrictedGuard(options.allowedTargets ?? [])
  const guardFor = (id: string): TargetGuard => ({
    isRestricted: async () => !(await trust.trusts(id)),
    admit: async (host, port) => ((await trust.trusts(id)) ? null : restricted.admit(host, port)),
  })
  return { trust, forCanary: guardFor, forScraper: guardFor }
}
