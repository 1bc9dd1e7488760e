import { z } from 'zod'
import { formatPath, ResourceValidationError, type ValidationIssue } from '#contract/resource-document.ts'
import { parseYamlDocuments, YamlInputError, type YamlDocument } from '#contract/yaml-input.ts'
import { CanaryDocumentSchema, CanaryMetadataSchema, CanarySpecSchema, specKeyIssues, type CanarySpec } from './canary-spec.schema.ts'

/** A canary ready to store: what the `canaries` row holds, whichever way it was written. */
export type CanaryInput = {
  name: string
  namespace: string
  labels: Record<string, string>
  annotations: Record<string, string> | null
  spec: CanarySpec
}

export { formatPath, type ValidationIssue }

/** Bad YAML or a bad spec: every problem with its field path (`spec.http[0].url`), nothing stored. */
export class CanaryValidationError extends ResourceValidationError {}

function issuesOf(error: z.ZodError, prefix: (string | number)[], spec: unknown): ValidationIssue[] {
  const issues = error.issues.map((issue) => ({ path: formatPath([...prefix, ...issue.path]), message: issue.message }))
  for (const extra of specKeyIssues(spec)) {
    const path = formatPath([...prefix, 'spec', ...extra.path])
    if (!issues.some((issue) => issue.path === path && issue.message === extra.message)) issues.push({ path, message: extra.message })
  }
  return issues
}

/**
 * Accepts a Kubernetes-style Canary document, or the row shape `{name, namespace, labels, spec}`
 * that the generic API and the UI's editor send. `prefix` places the errors inside a
 * multi-document file (`[1].spec.http[0].url`).
 */
export function parseCanaryObject(value: unknown, prefix: (string | number)[] = []): CanaryInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CanaryValidationError([{ path: formatPath(prefix), message: 'must be a Canary object' }])
  }
  const record = value as Record<string, unknown>
  if ('apiVersion' in record || 'kind' in record || 'metadata' in record) {
    const parsed = CanaryDocumentSchema.safeParse(record)
    if (!parsed.success) throw new CanaryValidationError(issuesOf(parsed.error, prefix, record.spec))
    const { metadata, spec } = parsed.data
    return {
      name: metadata.name,
      namespace: metadata.namespace ?? 'default',
      labels: metadata.labels ?? {},
      annotations: metadata.annotations ?? null,
      spec: spec as CanarySpec,
    }
  }
  const RowSchema = z.object({
    name: CanaryMetadataSchema.shape.name,
    namespace: CanaryMetadataSchema.shape.namespace,
    labels: z.record(z.string(), z.string()).nullish(),
    annotations: z.record(z.string(), z.string()).nullish(),
    spec: CanarySpecSchema,
  }).passthrough()
  const parsed = RowSchema.safeParse(record)
  if (!parsed.success) throw new CanaryValidationError(issuesOf(parsed.error, prefix, record.spec))
  return {
    name: parsed.data.name,
    namespace: parsed.data.namespace ?? 'default',
    labels: parsed.data.labels ?? {},
    annotations: parsed.data.annotations ?? null,
    spec: parsed.data.spec as CanarySpec,
  }
}

/** Parses one or more YAML (or JSON) documents; a `kind: List` is unwrapped. Empty documents are skipped. */
export function parseCanaryText(text: string): CanaryInput[] {
  let docs: YamlDocument[]
  try {
    docs = parseYamlDocuments(text)
  } catch (error) {
    if (!(error instanceof YamlInputError)) throw error
    throw new CanaryValidationError(error.problems.map((problem) => ({ path: error.documents > 1 ? `[${problem.document}]` : '', message: problem.message })))
  }
  const values = docs.map((doc) => doc.value).filter((value) => value !== null && value !== undefined)
  const flat: unknown[] = []
  for (const value of values) {
    const list = value as { kind?: unknown; items?: unknown }
    if (list && typeof list === 'object' && list.kind === 'List' && Array.isArray(list.items)) flat.push(...list.items)
    else if (Array.isArray(value)) flat.push(...value)
    else flat.push(value)
  }
  if (flat.length === 0) throw new CanaryValidationError([{ path: '', message: 'no Canary document found' }])
  const issues: ValidationIssue[] = []
  const inputs: CanaryInput[] = []
  flat.forEach((value, index) => {
    try {
      inputs.push(parseCanaryObject(value, flat.length > 1 ? [index] : []))
    } catch (error) {
      if (error instanceof CanaryValidationError) issues.push(...error.issues)
      else throw error
    }
  })
  if (issues.length > 0) throw new CanaryValidationError(issues)
  return inputs
}

/** Back to the Kubernetes shape users keep in git. */
export function toCanaryDocument(row: { id?: string; name: string; namespace: string; labels?: unknown; annotations?: unknown; spec: unknown }) {
  const metadata: Record<string, unknown> = { name: row.name, namespace: row.namespace }
  if (row.labels && Object.keys(row.labels as object).length > 0) metadata.labels = row.labels
  if (row.annotations && Object.keys(row.annotations as object).length > 0) metadata.annotations = row.annotations
  if (row.id) metadata.uid = row.id
  return { apiVersion: 'canaries.flanksource.com/v1', kind: 'Canary', metadata, spec: row.spec }
}
