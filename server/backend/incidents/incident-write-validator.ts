import type express from 'express'
import { z } from 'zod'
import type { Queryable } from '#server/db/client.ts'
import type { ValidateWriteInput, ValidateWriteResult } from '#server/backend/postgrest/router.ts'
import {
  EVIDENCE_REFERENCE,
  EVIDENCE_TYPES,
  HYPOTHESIS_PARENT_TYPE,
  HYPOTHESIS_STATUSES,
  HYPOTHESIS_TYPES,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  INCIDENT_TYPES,
  RESPONDER_TYPES,
  type EvidenceType,
  type HypothesisType,
} from '#contract/incident-vocabulary.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * Write rules of the incident tables, enforced on every /api/db write (the router's
 * `validateWrite` hook) because the database keeps the vocabularies as free text. POST rows are
 * checked whole; PATCH bodies only for the fields they send, plus the nesting of hypotheses,
 * which needs the rows being changed.
 */

// One code for every rule: PostgREST answers a violated CHECK constraint with 400 and 23514,
// which is what these rules would be if the database enforced them.
const VALIDATION_CODE = '23514'

const oneOf = (field: string, values: readonly string[]) => `${field} must be one of ${values.join(', ')}`

function enumField<T extends readonly [string, ...string[]]>(field: string, values: T, requiredMessage?: string) {
  const invalid = oneOf(field, values)
  const missing = requiredMessage ?? `${field} is required`
  return z.enum(values, {
    errorMap: (issue, ctx) => {
      // A missing value (or null, when the spec words the rule as "please select") is the
      // "required" case; anything else is outside the vocabulary.
      if (issue.code === 'invalid_type' && (ctx.data === undefined || (ctx.data === null && requiredMessage))) return { message: missing }
      return { message: invalid }
    },
  })
}

const uuid = (field: string, requiredMessage?: string) =>
  z
    .string({
      required_error: requiredMessage ?? `${field} is required`,
      invalid_type_error: requiredMessage ?? `${field} must be a uuid`,
    })
    .uuid(`${field} must be a uuid`)

const optionalUuid = (field: string) => uuid(field).nullable().optional()

const text = (field: string, options: { allowEmpty?: boolean } = {}) => {
  const base = z.string({ required_error: `${field} is required`, invalid_type_error: `${field} must be a string` })
  return options.allowEmpty ? base : base.trim().min(1, `${field} must not be empty`)
}

const timestamp = (field: string) =>
  z
    .string({ invalid_type_error: `${field} must be a timestamp` })
    .refine((value) => value === 'now()' || !Number.isNaN(Date.parse(value)), `${field} must be a timestamp`)
    .nullable()
    .optional()

const optionalBoolean = (field: string) => z.boolean({ invalid_type_error: `${field} must be true or false` }).nullable().optional()

const jsonObject = (field: string) =>
  z.record(z.unknown(), { invalid_type_error: `${field} must be a JSON object` }).nullable().optional()

const incidentShape = {
  title: text('title'),
  description: text('description', { allowEmpty: true }),
  type: enumField('type', INCIDENT_TYPES, 'Please select an incident type'),
  severity: enumField('severity', INCIDENT_SEVERITIES, 'Please select incident severity'),
  status: enumField('status', INCIDENT_STATUSES).optional(),
  created_by: uuid('created_by'),
  commander_id: optionalUuid('commander_id'),
  communicator_id: optionalUuid('communicator_id'),
  incident_rule_id: optionalUuid('incident_rule_id'),
  acknowledged: timestamp('acknowledged'),
  resolved: timestamp('resolved'),
  closed: timestamp('closed'),
}

const hypothesisShape = {
  incident_id: uuid('incident_id', 'Must select or create an incident'),
  title: text('title'),
  type: enumField('type', HYPOTHESIS_TYPES),
  status: enumField('status', HYPOTHESIS_STATUSES).optional(),
  created_by: uuid('created_by'),
  parent_id: optionalUuid('parent_id'),
  owner: optionalUuid('owner'),
  team_id: optionalUuid('team_id'),
}

const evidenceShape = {
  hypothesis_id: uuid('hypothesis_id', 'Must select or create a hypothesis'),
  type: enumField('type', EVIDENCE_TYPES),
  description: text('description', { allowEmpty: true }),
  created_by: uuid('created_by'),
  config_id: optionalUuid('config_id'),
  config_change_id: optionalUuid('config_change_id'),
  config_analysis_id: optionalUuid('config_analysis_id'),
  component_id: optionalUuid('component_id'),
  check_id: optionalUuid('check_id'),
  definition_of_done: optionalBoolean('definition_of_done'),
  done: optionalBoolean('done'),
  factor: optionalBoolean('factor'),
  mitigator: optionalBoolean('mitigator'),
  script: z.string({ invalid_type_error: 'script must be a string' }).nullable().optional(),
  script_result: z.string({ invalid_type_error: 'script_result must be a string' }).nullable().optional(),
  properties: jsonObject('properties'),
}

const commentShape = {
  incident_id: uuid('incident_id', 'Must select or create an incident'),
  comment: text('comment'),
  created_by: uuid('created_by'),
  responder_id: optionalUuid('responder_id'),
  hypothesis_id: optionalUuid('hypothesis_id'),
  external_id: z.string({ invalid_type_error: 'external_id must be a string' }).nullable().optional(),
  external_created_by: z.string({ invalid_type_error: 'external_created_by must be a string' }).nullable().optional(),
}

const responderShape = {
  incident_id: uuid('incident_id', 'Must select or create an incident'),
  type: enumField('type', RESPONDER_TYPES),
  created_by: uuid('created_by'),
  person_id: optionalUuid('person_id'),
  team_id: optionalUuid('team_id'),
  index: z.number({ invalid_type_error: 'index must be a number' }).int('index must be a whole number').min(0, 'index must not be negative').max(32767, 'index must be at most 32767').nullable().optional(),
  external_id: z.string({ invalid_type_error: 'external_id must be a string' }).nullable().optional(),
  properties: jsonObject('properties'),
  acknowledged: timestamp('acknowledged'),
  resolved: timestamp('resolved'),
  closed: timestamp('closed'),
}

// passthrough: columns outside these shapes are checked by the engine itself (PGRST204).
function schemasOf<S extends z.ZodRawShape>(shape: S) {
  return { create: z.object(shape).passthrough(), update: z.object(shape).partial().passthrough() }
}

/** zod schemas of one row per incident table: `create` for POST rows, `update` for PATCH bodies. */
export const IncidentWriteSchemas = {
  incidents: schemasOf(incidentShape),
  hypotheses: schemasOf(hypothesisShape),
  evidences: schemasOf(evidenceShape),
  comments: schemasOf(commentShape),
  responders: schemasOf(responderShape),
}

export type IncidentWriteRelation = keyof typeof IncidentWriteSchemas
export const INCIDENT_WRITE_RELATIONS = Object.keys(IncidentWriteSchemas) as IncidentWriteRelation[]

type Issue = { row: number; field: string; message: string }
type Row = Record<string, unknown>

const has = (row: Row, key: string) => Object.prototype.hasOwnProperty.call(row, key)
const present = (value: unknown) => value !== undefined && value !== null

/** Cross-field rules every row must meet on its own (no database needed). */
function rowRules(relation: IncidentWriteRelation, row: Row, method: 'POST' | 'PATCH'): { field: string; message: string }[] {
  const issues: { field: string; message: string }[] = []
  if (relation === 'evidences' && has(row, 'type')) {
    const column = EVIDENCE_REFERENCE[row.type as EvidenceType]
    // On PATCH the reference may already be stored; only a body that sends both can be judged alone.
    if (column && !present(row[column]) && (method === 'POST' || has(row, column))) {
      issues.push({ field: column, message: `${column} is required for evidence of type ${String(row.type)}` })
    }
  }
  if (relation === 'responders') {
    if (present(row.person_id) && present(row.team_id)) {
      issues.push({ field: 'team_id', message: 'a responder is either a person (person_id) or a team (team_id), not both' })
    } else if (method === 'POST' && !present(row.person_id) && !present(row.team_id)) {
      issues.push({ field: 'person_id', message: 'a responder needs person_id (a person) or team_id (a team)' })
    }
    if (row.type === 'person' && method === 'POST' && !present(row.person_id)) {
      issues.push({ field: 'person_id', message: 'person_id is required for a responder of type person' })
    }
  }
  if (relation === 'hypotheses' && method === 'POST' && has(row, 'type')) {
    const parentType = HYPOTHESIS_PARENT_TYPE[row.type as HypothesisType]
    if (parentType === null && present(row.parent_id)) {
      issues.push({ field: 'parent_id', message: 'a root hypothesis has no parent_id' })
    }
    if (parentType !== null && parentType !== undefined && !present(row.parent_id)) {
      issues.push({ field: 'parent_id', message: `a ${String(row.type)} hypothesis needs parent_id: the ${parentType} hypothesis it belongs to` })
    }
  }
  return issues
}

/** The ids a PATCH/DELETE targets when the request filters by id (`id=eq.x` or `id=in.(x,y)`). */
export function targetIds(req: express.Request): string[] | null {
  const raw = req.query.id
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]
  if (values.length !== 1 || typeof values[0] !== 'string') return null
  const filter = values[0]
  if (filter.startsWith('eq.')) return [filter.slice(3)]
  const list = /^in\.\((.*)\)$/.exec(filter)
  if (list) return list[1]!.split(',').map((item) => item.trim().replace(/^"(.*)"$/, '$1')).filter(Boolean)
  return null
}

type HypothesisRow = { id: string; incident_id: string; type: string; parent_id: string | null }

async function loadHypotheses(db: Queryable, ids: string[]): Promise<Map<string, HypothesisRow>> {
  const valid = [...new Set(ids.filter((id) => isUuid(id)))]
  if (valid.length === 0) return new Map()
  const { rows } = await db.query<HypothesisRow>('SELECT id, incident_id, type, parent_id FROM hypotheses WHERE id = ANY($1::uuid[])', [valid])
  return new Map(rows.map((row) => [String(row.id), { ...row, id: String(row.id), incident_id: String(row.incident_id) }]))
}

/** Parent must exist, sit in the same incident and have the type one level up. */
function nestingIssue(row: { type: string; incident_id: string; parent_id: string | null; id?: string }, parent: HypothesisRow | undefined): { field: string; message: string } | null {
  const expected = HYPOTHESIS_PARENT_TYPE[row.type as HypothesisType]
  if (expected === undefined) return null
  if (expected === null) return row.parent_id ? { field: 'parent_id', message: 'a root hypothesis has no parent_id' } : null
  if (!row.parent_id) return { field: 'parent_id', message: `a ${row.type} hypothesis needs parent_id: the ${expected} hypothesis it belongs to` }
  if (!parent) return { field: 'parent_id', message: `parent hypothesis ${row.parent_id} does not exist` }
  if (parent.incident_id !== row.incident_id) {
    return { field: 'parent_id', message: `parent hypothesis ${row.parent_id} belongs to another incident` }
  }
  if (parent.type !== expected) {
    return { field: 'parent_id', message: `a ${row.type} hypothesis must be nested under a ${expected} hypothesis, not a ${parent.type}` }
  }
  return null
}

async function hypothesisIssues(db: Queryable, method: 'POST' | 'PATCH', rows: Row[], req: express.Request): Promise<Issue[]> {
  const issues: Issue[] = []
  if (method === 'POST') {
    // Parents may be created in the same request when the client picks the ids itself.
    const batch = new Map<string, HypothesisRow>()
    for (const row of rows) {
      if (typeof row.id === 'string') {
        batch.set(row.id, { id: row.id, incident_id: String(row.incident_id), type: String(row.type), parent_id: (row.parent_id as string | null) ?? null })
      }
    }
    const stored = await loadHypotheses(db, rows.map((row) => row.parent_id).filter((id): id is string => typeof id === 'string'))
    rows.forEach((row, index) => {
      if (!present(row.parent_id)) return
      const parentId = String(row.parent_id)
      const issue = nestingIssue(
        { type: String(row.type), incident_id: String(row.incident_id), parent_id: parentId },
        stored.get(parentId) ?? batch.get(parentId),
      )
      if (issue) issues.push({ row: index, ...issue })
    })
    return issues
  }

  const patch = rows[0] ?? {}
  if (!has(patch, 'type') && !has(patch, 'parent_id') && !has(patch, 'incident_id')) return issues
  const ids = targetIds(req)
  if (!ids) {
    issues.push({ row: 0, field: 'id', message: 'changing type, parent_id or incident_id of hypotheses must target them by id (id=eq.<uuid>)' })
    return issues
  }
  const targets = await loadHypotheses(db, ids)
  const parentIds = has(patch, 'parent_id') ? [patch.parent_id] : [...targets.values()].map((row) => row.parent_id)
  const parents = await loadHypotheses(db, parentIds.filter((id): id is string => typeof id === 'string'))
  const { rows: children } = targets.size
    ? await db.query<{ parent_id: string; type: string; incident_id: string }>(
        'SELECT parent_id, type, incident_id FROM hypotheses WHERE parent_id = ANY($1::uuid[])',
        [[...targets.keys()]],
      )
    : { rows: [] }
  for (const target of targets.values()) {
    const merged = {
      id: target.id,
      type: has(patch, 'type') ? String(patch.type) : target.type,
      incident_id: has(patch, 'incident_id') ? String(patch.incident_id) : target.incident_id,
      parent_id: has(patch, 'parent_id') ? ((patch.parent_id as string | null) ?? null) : target.parent_id,
    }
    if (merged.parent_id === target.id) {
      issues.push({ row: 0, field: 'parent_id', message: 'a hypothesis cannot be its own parent' })
      continue
    }
    const issue = nestingIssue(merged, merged.parent_id ? parents.get(merged.parent_id) : undefined)
    if (issue) issues.push({ row: 0, ...issue })
    for (const child of children.filter((row) => String(row.parent_id) === target.id)) {
      if (HYPOTHESIS_PARENT_TYPE[child.type as HypothesisType] !== merged.type) {
        issues.push({ row: 0, field: 'type', message: `hypothesis ${target.id} has ${child.type} children, so it cannot become a ${merged.type}` })
        break
      }
      if (String(child.incident_id) !== merged.incident_id) {
        issues.push({ row: 0, field: 'incident_id', message: `hypothesis ${target.id} has children in its incident; move them first` })
        break
      }
    }
  }
  return issues
}

/** A comment's hypothesis and responder must belong to the comment's incident. */
async function commentIssues(db: Queryable, rows: Row[]): Promise<Issue[]> {
  const issues: Issue[] = []
  for (const [index, row] of rows.entries()) {
    if (typeof row.incident_id !== 'string') continue
    for (const [field, table] of [['hypothesis_id', 'hypotheses'], ['responder_id', 'responders']] as const) {
      const id = row[field]
      if (typeof id !== 'string' || !isUuid(id)) continue
      const { rows: found } = await db.query<{ incident_id: string }>(`SELECT incident_id FROM ${table} WHERE id = $1`, [id])
      if (found.length === 0) issues.push({ row: index, field, message: `${field} ${id} does not exist` })
      else if (String(found[0]!.incident_id) !== row.incident_id) issues.push({ row: index, field, message: `${field} ${id} belongs to another incident` })
    }
  }
  return issues
}

/** The person XOR team rule on PATCH, against the stored row when the body sends only one side. */
async function responderPatchIssues(db: Queryable, patch: Row, req: express.Request): Promise<Issue[]> {
  const sendsPerson = has(patch, 'person_id')
  const sendsTeam = has(patch, 'team_id')
  if (!sendsPerson && !sendsTeam) return []
  const ids = targetIds(req)?.filter((id) => isUuid(id)) ?? []
  if (ids.length === 0) return []
  const { rows } = await db.query<{ id: string; type: string; person_id: string | null; team_id: string | null }>(
    'SELECT id, type, person_id, team_id FROM responders WHERE id = ANY($1::uuid[])',
    [ids],
  )
  for (const stored of rows) {
    const person = sendsPerson ? patch.person_id : stored.person_id
    const team = sendsTeam ? patch.team_id : stored.team_id
    if (present(person) && present(team)) {
      return [{ row: 0, field: sendsTeam ? 'team_id' : 'person_id', message: 'a responder is either a person (person_id) or a team (team_id), not both' }]
    }
    if (!present(person) && !present(team)) {
      return [{ row: 0, field: sendsPerson ? 'person_id' : 'team_id', message: 'a responder needs person_id (a person) or team_id (a team)' }]
    }
    const type = has(patch, 'type') ? patch.type : stored.type
    if (type === 'person' && !present(person)) {
      return [{ row: 0, field: 'person_id', message: 'person_id is required for a responder of type person' }]
    }
  }
  return []
}

function failure(relation: string, issues: Issue[], rowCount: number): ValidateWriteResult {
  const describe = (issue: Issue) => `${rowCount > 1 ? `[${issue.row}] ` : ''}${issue.field}: ${issue.message}`
  return {
    ok: false,
    status: 400,
    code: VALIDATION_CODE,
    message: issues[0]!.message,
    details: `${relation}: ${issues.map(describe).join('; ')}`,
  }
}

function isIncidentRelation(relation: string): relation is IncidentWriteRelation {
  return Object.prototype.hasOwnProperty.call(IncidentWriteSchemas, relation)
}

/**
 * The `validateWrite` hook for the incident tables (incidents, hypotheses, evidences, comments,
 * responders); other relations pass untouched, so it composes with validators of other areas.
 */
export async function incidentWriteValidator(input: ValidateWriteInput): Promise<ValidateWriteResult> {
  const { relation, method, rows, req, db } = input
  if (!isIncidentRelation(relation) || method === 'DELETE') return { ok: true }
  const schema = method === 'POST' ? IncidentWriteSchemas[relation].create : IncidentWriteSchemas[relation].update
  const issues: Issue[] = []
  rows.forEach((row, index) => {
    const parsed = schema.safeParse(row)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) issues.push({ row: index, field: issue.path.join('.') || relation, message: issue.message })
      return
    }
    for (const issue of rowRules(relation, row, method)) issues.push({ row: index, ...issue })
  })
  if (issues.length > 0) return failure(relation, issues, rows.length)

  // Rules that read stored rows run only once the rows are well-formed.
  let stored: Issue[] = []
  if (relation === 'hypotheses') stored = await hypothesisIssues(db, method, rows, req)
  else if (relation === 'comments' && method === 'POST') stored = await commentIssues(db, rows)
  else if (relation === 'responders' && method === 'PATCH') stored = await responderPatchIssues(db, rows[0] ?? {}, req)
  return stored.length > 0 ? failure(relation, stored, rows.length) : { ok: true }
}

/** Runs several `validateWrite` hooks in turn; the first failure answers. */
export function composeWriteValidators(
  ...validators: ((input: ValidateWriteInput) => Promise<ValidateWriteResult>)[]
): (input: ValidateWriteInput) => Promise<ValidateWriteResult> {
  return async (input) => {
    for (const validate of validators) {
      const verdict = await validate(input)
      if (!verdict.ok) return verdict
    }
    return { ok: true }
  }
}
