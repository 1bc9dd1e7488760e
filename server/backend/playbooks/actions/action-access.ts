import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { parseDateMath } from '#server/backend/catalog/catalog-input.ts'
import { envValue, findConnection, resolveAccess, type ResolvedAccess } from '#server/backend/health/checks/check-inputs.ts'
import { parseAllowedTargets, restrictedGuard, UNRESTRICTED, type TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import type { ActionContext } from '../playbook-model.ts'

/**
 * What the network actions share: where they may connect and how a `connection` or inline
 * `url`/`username`/`password` becomes a URL with credentials, as checks resolve them (§0.3).
 */

/** A spec problem of one action (a missing field, a connection not found): the action fails with this message. */
export class ActionInputError extends Error {}

let allowed: { text: string | undefined; guard: TargetGuard } | undefined

/**
 * A playbook nobody with the exec right wrote may reach only what an untrusted canary may
 * (target-guard.ts): not this server's own or link-local addresses, LOOKOUT_CHECK_ALLOWED_TARGETS
 * excepted. The variable was validated at start (server/env.ts); it is read here so the
 * executors need nothing threaded through the runner for it.
 */
export function actionTargets(context: Pick<ActionContext, 'trusted'>): TargetGuard {
  if (context.trusted) return UNRESTRICTED
  const text = process.env.LOOKOUT_CHECK_ALLOWED_TARGETS
  if (!allowed || allowed.text !== text) allowed = { text, guard: restrictedGuard(parseAllowedTargets(text)) }
  return allowed.guard
}

/** The namespace a `connection://<name>` reference is looked up in: the playbook's. */
export function playbookNamespace(context: Pick<ActionContext, 'env'>): string {
  const namespace = context.env.playbook.namespace
  return typeof namespace === 'string' && namespace !== '' ? namespace : 'default'
}

/** URL and credentials of an action block (its `connection`, `url`, `username`, `password`). */
export async function resolveActionAccess(spec: Record<string, unknown>, context: ActionContext, options: { urlKeys?: string[]; connectionIsUrl?: boolean } = {}): Promise<ResolvedAccess> {
  try {
    return await resolveAccess(
      spec,
      {
        resolveConnection: (ref, namespace) => findConnection(context.db, ref, namespace),
        templatesEnabled: true,
        targets: actionTargets(context),
        canary: { namespace: playbookNamespace(context) },
      },
      options,
    )
  } catch (error) {
    throw new ActionInputError((error as Error).message)
  }
}

/** An EnvVar field's value; `valueFrom` (no Kubernetes store here) fails naming the field. */
export function envVarValue(value: unknown, field: string): string | undefined {
  try {
    return envValue(value as EnvVar | undefined, field)
  } catch (error) {
    throw new ActionInputError((error as Error).message)
  }
}

export function basicAuthorization(username: string | undefined, password: string | undefined): string | undefined {
  if (!username && !password) return undefined
  return `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`
}

/** `start`/`end` of a logs or prometheus query: RFC 3339 or date math (`now-1h`). */
export function timeOf(value: unknown, fallback: Date, field: string, now: Date): Date {
  if (value === undefined || value === null || value === '') return fallback
  try {
    return parseDateMath(String(value), now, field)
  } catch (error) {
    throw new ActionInputError((error as Error).message)
  }
}

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value)
}
