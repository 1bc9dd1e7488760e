import type { Db } from '#server/db/client.ts'
import type { CheckRunContext } from '#server/backend/health/check-result.ts'
import { runCheck, type mergeRetries } from '#server/backend/health/check-run.ts'
import { CHECK_RUNNERS, timeoutFor, unsupportedRunner } from '#server/backend/health/check-runners.ts'
import { checksOfSpec } from '#server/backend/health/canary-sync.ts'
import { findConnection } from '#server/backend/health/checks/check-inputs.ts'
import { restrictedGuard, UNRESTRICTED, type TargetGuard } from '#server/backend/health/checks/target-guard.ts'
import type { TopologyRow, TopologyRunOptions } from './topology-model.ts'

/**
 * `lookup` (of a component or a property) is a canary spec run once, in process, through the
 * check engine's single-check runner; its output is what the checks' `display` rendered. Nothing
 * is stored: no canary, no check, no status row.
 *
 * The spec is the topology author's, so it is fenced as their canaries would be: unless someone
 * holding the exec permission wrote it (`options.trusted`), its checks may not reach this server's
 * own or link-local addresses (LOOKOUT_CHECK_ALLOWED_TARGETS excepted) and exec/folder refuse to run.
 */

/** A lookup check failed, or gave nothing to read: the caller reports it and keeps the rest of the tree. */
export class LookupError extends Error {}

const DEFAULT_LOOKUP_TIMEOUT_MS = 60_000

export type LookupRunner = (name: string, spec: Record<string, unknown>) => Promise<unknown[]>

/** One runner per topology run: the fence is decided once, connections are read as the check engine reads them. */
export function createLookupRunner(db: Db, topology: TopologyRow, options: TopologyRunOptions): LookupRunner {
  const targets: TargetGuard = options.trusted ? UNRESTRICTED : restrictedGuard(options.allowedTargets ?? [])
  const resolveConnection = (ref: string, namespace: string) => findConnection(db, ref, namespace)

  return async (name, spec) => {
    const checks = checksOfSpec({ namespace: topology.namespace, labels: topology.labels, spec })
    if (checks.length === 0) throw new LookupError('the lookup declares no check')
    const outputs: unknown[] = []
    for (const check of checks) {
      if (options.signal?.aborted) throw new LookupError('the run was stopped')
      const context: Omit<CheckRunContext, 'signal'> = {
        timeoutMs: timeoutFor(check.type, check.spec, DEFAULT_LOOKUP_TIMEOUT_MS),
        canary: { id: topology.id, name, namespace: topology.namespace, labels: topology.labels ?? {}, annotations: {} },
        check: { id: '', name: check.name, type: check.type, description: check.description ?? '', labels: check.labels, endpoint: '' },
        templatesEnabled: true,
        resolveConnection,
        targets,
        // A lookup keeps no history, so it has no previous result to work from.
        lastResult: async () => null,
      }
      const runner = CHECK_RUNNERS[check.type] ?? unsupportedRunner(check.type)
      const results = await runCheck(runner, check.spec, context, {
        canaryRetries: spec.retries as Parameters<typeof mergeRetries>[0],
        stopSignal: options.signal,
      })
      for (const result of results) {
        if (!result.pass || result.errors.length > 0) {
          throw new LookupError(`${check.type} check ${check.name}: ${result.errors.join(', ') || 'failed'}`)
        }
        outputs.push(...outputOf(result.message, result.detail))
      }
    }
    return outputs
  }
}

/**
 * What one result yields, as canary-checker reads it: the rendered message when there is one,
 * otherwise the detail (a list spreads into its items, an exec's detail gives its stdout).
 */
function outputOf(message: string, detail: unknown): unknown[] {
  if (message !== '') return [message]
  if (Array.isArray(detail)) return detail
  if (detail && typeof detail === 'object' && typeof (detail as { stdout?: unknown }).stdout === 'string') return [(detail as { stdout: string }).stdout]
  if (detail !== undefined && detail !== null) return [detail]
  return ['']
}

/**
 * A component lookup's outputs as component objects: a single text output is JSON (a list of
 * components, or one component); other outputs are components already (a check's detail items).
 */
export function componentsOfOutputs(outputs: unknown[]): Record<string, unknown>[] {
  // Nothing at all is a spec without a display more often than an empty inventory (which renders
  // `[]`): reported, so the components it yielded before are not taken for gone.
  if (outputs.every((output) => output === '')) throw new LookupError('the lookup rendered nothing; its display must give a JSON list of components')
  let items: unknown[] = outputs
  if (outputs.length === 1 && typeof outputs[0] === 'string') {
    const text = outputs[0].trim()
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new LookupError(`display did not return JSON: ${(error as Error).message}`)
    }
    items = Array.isArray(parsed) ? parsed : [parsed]
  }
  return items.map((item, index) => {
    if (typeof item === 'string') {
      try {
        item = JSON.parse(item)
      } catch {
        throw new LookupError(`item ${index} is not a component object`)
      }
    }
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new LookupError(`item ${index} is not a component object`)
    return item as Record<string, unknown>
  })
}
