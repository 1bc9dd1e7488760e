import type { ValidateWriteInput, ValidateWriteResult } from './postgrest/router.ts'
import { CanaryValidationError, parseCanaryObject } from '#contract/canary/canary-document.ts'
import { IncidentRuleSpecError, parseIncidentRuleSpec } from './incidents/incident-rules.ts'
import { parseScrapeConfigObject, ScrapeConfigValidationError, scrapeConfigSpecIssues } from '#contract/catalog/scrape-config-document.ts'
import { parseTopologyObject, TopologyValidationError, topologySpecIssues } from '#contract/topology/topology-document.ts'
import { notificationRowIssues } from '#contract/notifications/notification-document.ts'
import { parseCelExpression } from './health/cel-library.ts'
import { parseViewObject, ViewValidationError, viewSpecIssues } from '#contract/views/view-document.ts'

type Issue = { path: string; message: string }

/**
 * Resources written through the generic API (`POST /api/db/canaries`, the settings editor's
 * PATCH of `spec`) are checked like the YAML users apply: a bad spec answers 400 naming the
 * field path, and nothing is stored.
 */
const SPEC_CHECKS: Record<string, (row: Record<string, unknown>, method: 'POST' | 'PATCH') => Issue[]> = {
  canaries(row, method) {
    if (method === 'PATCH' && !('spec' in row)) return []
    try {
      // A PATCH may carry the spec alone; name and namespace stay as stored.
      parseCanaryObject(method === 'PATCH' ? { name: 'patched', namespace: 'default', spec: row.spec } : row)
      return []
    } catch (error) {
      if (error instanceof CanaryValidationError) return error.issues
      throw error
    }
  },
  config_scrapers(row, method) {
    if (method === 'PATCH') return 'spec' in row ? scrapeConfigSpecIssues(row.spec) : []
    try {
      parseScrapeConfigObject(row)
      return []
    } catch (error) {
      if (error instanceof ScrapeConfigValidationError) return error.issues
      throw error
    }
  },
  topologies(row, method) {
    if (method === 'PATCH') return 'spec' in row ? topologySpecIssues(row.spec) : []
    try {
      parseTopologyObject(row)
      return []
    } catch (error) {
      if (error instanceof TopologyValidationError) return error.issues
      throw error
    }
  },
  notifications(row, method) {
    const issues = notificationRowIssues(row, method === 'POST')
    const celFilters: [string, unknown][] = [['filter', row.filter]]
    for (const column of ['custom_services', 'fallback_custom_services'] as const) {
      const services = row[column]
      if (Array.isArray(services)) services.forEach((service, index) => celFilters.push([`${column}.${index}.filter`, (service as Record<string, unknown> | null)?.filter]))
    }
    for (const [path, expression] of celFilters) {
      if (typeof expression !== 'string' || !expression.trim()) continue
      try {
        parseCelExpression(expression)
      } catch (error) {
        issues.push({ path, message: `is not a valid CEL expression: ${(error as Error).message}` })
      }
    }
    return issues
  },
  views(row, method) {
    if (method === 'PATCH') return 'spec' in row ? [...viewSpecIssues(row.spec), ...viewMappingIssues(row.spec)] : []
    try {
      parseViewObject(row)
      return viewMappingIssues(row.spec)
    } catch (error) {
      if (error instanceof ViewValidationError) return error.issues
      throw error
    }
  },
  incident_rules(row, method) {
    if (method === 'PATCH' && !('spec' in row)) return []
    if (method === 'POST' && (typeof row.name !== 'string' || !row.name.trim())) return [{ path: 'name', message: 'is required' }]
    try {
      parseIncidentRuleSpec(row.spec)
      return []
    } catch (error) {
      if (error instanceof IncidentRuleSpecError) return error.issues.map((issue) => ({ ...issue, path: issue.path ? `spec.${issue.path}` : 'spec' }))
      throw error
    }
  },
}

/** A view's `mapping` is CEL over `row`: one that does not parse is refused on write, not at the first refresh. */
function viewMappingIssues(spec: unknown): Issue[] {
  const mapping = (spec as { mapping?: unknown } | null)?.mapping
  if (!mapping || typeof mapping !== 'object') return []
  const issues: Issue[] = []
  for (const [column, expression] of Object.entries(mapping as Record<string, unknown>)) {
    if (typeof expression !== 'string') continue
    try {
      parseCelExpression(expression)
    } catch (error) {
      issues.push({ path: `spec.mapping.${column}`, message: `is not a valid CEL expression: ${(error as Error).message}` })
    }
  }
  return issues
}

export async function resourceSpecValidator(input: ValidateWriteInput): Promise<ValidateWriteResult> {
  const check = SPEC_CHECKS[input.relation]
  if (!check || input.method === 'DELETE') return { ok: true }
  const problems: string[] = []
  input.rows.forEach((row, index) => {
    // Soft deletes and other writes that do not touch the definition pass.
    for (const issue of check(row, input.method as 'POST' | 'PATCH')) {
      problems.push(`${input.rows.length > 1 ? `[${index}] ` : ''}${issue.path ? `${issue.path}: ` : ''}${issue.message}`)
    }
  })
  if (problems.length === 0) return { ok: true }
  return { ok: false, status: 400, code: '23514', message: problems[0]!, details: problems.join('; ') }
}
