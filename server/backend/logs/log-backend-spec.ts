import { z } from 'zod'
import { PARSERS } from './log-line-parsers.ts'

/**
 * The `spec` of a `logging_backends` row (kind LoggingBackend) as this Lookout runs it: exactly
 * one backend block, the `routes` that attach it to components and config items by type, id
 * prefix or labels (as apm-hub routed them), and the `parse`/`mapping` of the playbook `logs`
 * action applied to its lines. Unknown keys pass through, so a pasted resource is stored whole.
 */

const text = z.string({ invalid_type_error: 'must be a string' })
const required = z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).trim().min(1, 'must not be empty')
const labelMap = z.record(z.string(), text, { invalid_type_error: 'must be a map of names to values' })
/** Quoted into SQL as an identifier, so only plain names (optionally schema-qualified) pass. */
const identifier = required.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain column name (letters, digits, _)')
const tableName = required.regex(/^([A-Za-z_][A-Za-z0-9_]*\.)?[A-Za-z_][A-Za-z0-9_]*$/, 'must be a table name, optionally schema.table')

const access = {
  url: text.optional(),
  connection: text.optional(),
  username: z.unknown().optional(),
  password: z.unknown().optional(),
}

const LokiSchema = z.object({ ...access, query: text.optional() }).passthrough()
const OpenSearchSchema = z.object({ ...access, index: required, query: z.union([text, z.record(z.unknown())]).optional(), timestampField: text.optional(), messageField: text.optional() }).passthrough()
const FilesSchema = z
  .object({
    paths: z.array(required, { required_error: 'is required', invalid_type_error: 'must be a list of path globs' }).min(1, 'needs at least one path glob'),
    labels: labelMap.optional(),
  })
  .passthrough()
const PostgresSchema = z
  .object({
    ...access,
    table: tableName,
    timestampColumn: identifier.optional(),
    messageColumn: identifier.optional(),
    severityColumn: identifier.optional(),
    labelColumns: z.array(identifier, { invalid_type_error: 'must be a list of column names' }).optional(),
  })
  .passthrough()

export const LOG_BACKEND_KINDS = ['loki', 'opensearch', 'elasticsearch', 'files', 'postgres'] as const
export type LogBackendKind = (typeof LOG_BACKEND_KINDS)[number]

const RouteSchema = z.object({ type: text.optional(), idPrefix: text.optional(), labels: labelMap.optional() }).passthrough()

export const LogBackendSpecSchema = z
  .object({
    loki: LokiSchema.optional(),
    opensearch: OpenSearchSchema.optional(),
    elasticsearch: OpenSearchSchema.optional(),
    files: FilesSchema.optional(),
    postgres: PostgresSchema.optional(),
    routes: z.array(RouteSchema, { invalid_type_error: 'must be a list' }).optional(),
    parse: z.enum(PARSERS, { errorMap: () => ({ message: `must be one of ${PARSERS.join(', ')}` }) }).optional(),
    mapping: z.record(z.unknown()).optional(),
  })
  .passthrough()
  .superRefine((spec, ctx) => {
    const set = LOG_BACKEND_KINDS.filter((key) => spec[key] !== undefined)
    if (set.length !== 1) ctx.addIssue({ code: z.ZodIssueCode.custom, message: `set exactly one of ${LOG_BACKEND_KINDS.join(', ')}${set.length ? ` (got ${set.join(', ')})` : ''}` })
  })

export type LogBackendSpec = z.infer<typeof LogBackendSpecSchema>
export type LogRoute = z.infer<typeof RouteSchema>

/** The spec's one backend block and its kind; the spec must have passed the schema. */
export function backendBlock(spec: LogBackendSpec): { kind: LogBackendKind; block: Record<string, unknown> } {
  const kind = LOG_BACKEND_KINDS.find((key) => spec[key] !== undefined)!
  return { kind, block: spec[kind] as Record<string, unknown> }
}

/**
 * Whether a spec reads what lives on this server rather than across the network: files on its
 * disk, or a table of Lookout's own database (a `postgres` block without url or connection).
 * Only specs an exec holder wrote may do that (log-backend-trust.ts).
 */
export function readsServerData(spec: unknown): string | null {
  if (!spec || typeof spec !== 'object') return null
  const value = spec as Record<string, unknown>
  if (value.files !== undefined && value.files !== null) return 'spec.files'
  const postgres = value.postgres as Record<string, unknown> | undefined | null
  if (postgres && typeof postgres === 'object' && !postgres.url && !postgres.connection) return 'spec.postgres'
  return null
}

export function specIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `spec${issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`)).join('')}: ${issue.message}`).join('; ')
}
