import { evaluateCel } from '#server/backend/health/expressions.ts'
import type { ComponentHealth, ComponentStatus, ComponentSummary, EvaluatedComponent } from './topology-model.ts'

/**
 * Health and status of a topology's components, worked out bottom-up in one pass before the
 * store writes anything (data-model §5.8 summary/health/status). A component's summary counts
 * its children's health and its linked checks' status; its health is the spec's, else its
 * healthExpr's, else the roll-up. A failing expression leaves the rolled-up value in place and
 * is reported, so one typo does not stop the run.
 */
export type RolledUp = {
  summary: ComponentSummary | null
  health: ComponentHealth
  status: ComponentStatus
  statusReason: string | null
}

const HEALTHS: readonly ComponentHealth[] = ['healthy', 'unhealthy', 'warning', 'unknown']
const STATUSES: readonly ComponentStatus[] = ['healthy', 'unhealthy', 'warning', 'error', 'info', 'unknown']

/** Worst first: one unhealthy child or check makes the parent unhealthy. */
function rolledHealth(counts: Record<ComponentHealth, number>, checks: { healthy: number; unhealthy: number }): ComponentHealth {
  if (counts.unhealthy > 0 || checks.unhealthy > 0) return 'unhealthy'
  if (counts.warning > 0) return 'warning'
  if (counts.healthy > 0 || checks.healthy > 0) return 'healthy'
  return 'unknown'
}

function expressionValue<T extends string>(result: unknown, allowed: readonly T[]): T | null {
  if (typeof result === 'boolean') return (result ? 'healthy' : 'unhealthy') as T
  if (typeof result === 'string' && (allowed as readonly string[]).includes(result.trim().toLowerCase())) return result.trim().toLowerCase() as T
  return null
}

function propertyValues(component: EvaluatedComponent): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const property of component.properties ?? []) values[property.name] = property.value ?? property.text ?? null
  return values
}

/**
 * `checkStatus(component)` gives the statuses ('healthy' / 'unhealthy' / null for never run) of
 * the checks linked to that component. Results are keyed by the component object.
 */
export function rollUpTree(
  root: EvaluatedComponent,
  checkStatuses: (component: EvaluatedComponent) => (string | null)[],
): { results: Map<EvaluatedComponent, RolledUp>; errors: string[] } {
  const results = new Map<EvaluatedComponent, RolledUp>()
  const errors: string[] = []

  const visit = (component: EvaluatedComponent, path: string): RolledUp => {
    const counts: Record<ComponentHealth, number> = { healthy: 0, unhealthy: 0, warning: 0, unknown: 0 }
    for (const child of component.children) counts[visit(child, `${path}/${child.name}`).health] += 1
    const checks = { healthy: 0, unhealthy: 0 }
    for (const status of checkStatuses(component)) {
      if (status === 'healthy' || status === 'unhealthy') checks[status] += 1
    }

    const summary: ComponentSummary = {}
    for (const key of HEALTHS) if (counts[key] > 0) summary[key] = counts[key]
    if (checks.healthy + checks.unhealthy > 0) {
      summary.checks = {}
      if (checks.healthy > 0) summary.checks.healthy = checks.healthy
      if (checks.unhealthy > 0) summary.checks.unhealthy = checks.unhealthy
    }
    // Expressions see every count, zeros included, so `summary.unhealthy > 0` never meets a missing key.
    const variables = {
      summary: { ...counts, checks },
      properties: propertyValues(component),
      component: { name: component.name, type: component.type, labels: component.labels ?? {} },
    }
    const rolled = rolledHealth(counts, checks)

    const fromExpression = <T extends string>(field: 'healthExpr' | 'statusExpr', allowed: readonly T[]): T | null => {
      const expression = component[field]
      if (!expression) return null
      try {
        const result = expressionValue(evaluateCel(expression, variables), allowed)
        if (result === null) errors.push(`component ${path}: ${field} "${expression}" gave neither one of ${allowed.join(', ')} nor a boolean`)
        return result
      } catch (error) {
        errors.push(`component ${path}: ${field} "${expression}": ${(error as Error).message}`)
        return null
      }
    }

    const health = component.health ?? fromExpression('healthExpr', HEALTHS) ?? rolled
    const status = component.status ?? fromExpression('statusExpr', STATUSES) ?? rolled
    const statusReason = component.statusReason ?? (status !== 'healthy' && rolled !== 'healthy' && rolled !== 'unknown' ? reasonOf(counts, checks) : null)
    const result: RolledUp = { summary: Object.keys(summary).length > 0 ? summary : null, health, status, statusReason }
    results.set(component, result)
    return result
  }

  visit(root, root.name)
  return { results, errors }
}

function reasonOf(counts: Record<ComponentHealth, number>, checks: { healthy: number; unhealthy: number }): string {
  const parts: string[] = []
  if (counts.unhealthy > 0) parts.push(`${counts.unhealthy} unhealthy component${counts.unhealthy === 1 ? '' : 's'}`)
  if (counts.warning > 0) parts.push(`${counts.warning} component${counts.warning === 1 ? '' : 's'} in warning`)
  if (checks.unhealthy > 0) parts.push(`${checks.unhealthy} failing check${checks.unhealthy === 1 ? '' : 's'}`)
  return parts.join(', ')
}
