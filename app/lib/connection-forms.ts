import { parseWithZod } from '@conform-to/zod'
import { z } from 'zod'
import { buildConnectionFormSchema, connectionFormDefaults, connectionRowFromForm, type ConnectionFormDefaults, type ConnectionFormValues, type ConnectionRowFields } from '#contract/connections/connection-form.ts'
import { type ConnectionTypeDefinition, type EnvVarSource, type SecretFormValue } from '#contract/connections/connection-types.ts'
import { NotificationUrlError } from '#contract/connections/notification-url.ts'
import type { ConnectionRow } from '#app/lib/connections.server.ts'

/**
 * The connection forms' server side (only actions, loaders and tests import it): a type's post
 * parsed with the contract's schema, secrets the page showed as `***` put back from the stored
 * row, and the row the data API is sent. Pages render from `#contract/connections/connection-types.ts`.
 */

/** What the page shows for a stored static secret: never the value itself (it would sit in the HTML). */
export const MASKED_SECRET = '***'

function readPath(values: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), values)
}

function writePath(values: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.')
  const last = keys.pop()!
  let node = values
  for (const key of keys) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {}
    node = node[key] as Record<string, unknown>
  }
  node[last] = value
}

function secretFields(definition: ConnectionTypeDefinition) {
  return definition.fields.filter((field) => field.kind === 'secret')
}

/** A connection row as the contract's form translation reads it. */
function rowFields(row: ConnectionRow): Partial<ConnectionRowFields> {
  return { ...row, properties: row.properties ?? {}, insecure_tls: row.insecure_tls === true }
}

/**
 * The edit form's starting values: the stored answers, each static secret replaced by `***` so
 * the page never carries it; a Secret or Config Map reference is shown as it is (it names, not holds).
 * @throws NotificationUrlError when a notification row's URL is not of its type's format.
 */
export function maskedFormDefaults(definition: ConnectionTypeDefinition, row: ConnectionRow): ConnectionFormDefaults {
  const defaults = connectionFormDefaults(definition, rowFields(row))
  for (const field of secretFields(definition)) {
    const value = readPath(defaults, field.name) as SecretFormValue | undefined
    if (value?.source === 'static' && value.value) writePath(defaults, field.name, { source: 'static', value: MASKED_SECRET })
  }
  return defaults
}

/** The stored static secrets of a row, by field name, as the form reads them back. */
function storedSecrets(definition: ConnectionTypeDefinition, row: ConnectionRow): Map<string, EnvVarSource> {
  const defaults = connectionFormDefaults(definition, rowFields(row))
  const secrets = new Map<string, EnvVarSource>()
  for (const field of secretFields(definition)) {
    const value = readPath(defaults, field.name) as SecretFormValue | undefined
    if (value?.source === 'static' && value.value) secrets.set(field.name, { value: value.value })
  }
  return secrets
}

/**
 * A post's answers with every `***` static secret put back from the stored row (a notification
 * type rebuilds its URL from them, so the table's own `***` rule could not keep them).
 */
export function restoreMaskedSecrets(definition: ConnectionTypeDefinition, values: ConnectionFormValues, row: ConnectionRow | null): ConnectionFormValues {
  if (!row) return values
  const stored = storedSecrets(definition, row)
  const restored = structuredClone(values)
  for (const field of secretFields(definition)) {
    const posted = readPath(restored, field.name) as EnvVarSource | undefined
    const keep = stored.get(field.name)
    if (posted && 'value' in posted && posted.value === MASKED_SECRET && keep) writePath(restored, field.name, keep)
  }
  return restored
}

/** The secret answers a reply must not echo back into the page (conform's `hideFields`). */
export function secretValueFields(definition: ConnectionTypeDefinition): string[] {
  return secretFields(definition).map((field) => `${field.name}.value`)
}

export type ConnectionSave = (row: ConnectionRowFields) => Promise<void>

/** Why a save was refused: a field's message, or the form's. */
export class ConnectionSaveRefusal extends Error {
  constructor(
    message: string,
    readonly field: string | null,
    readonly status: number,
  ) {
    super(message)
    this.name = 'ConnectionSaveRefusal'
  }
}

/**
 * Parses a type form's post with the contract's schema and hands the row it describes to `save`;
 * a `ConnectionSaveRefusal` thrown by `save` becomes an issue on its field (or the form). The
 * submission is `reply()`-ed by the action; `status` is the answer's status when it failed.
 */
export async function submitConnectionForm(formData: FormData, definition: ConnectionTypeDefinition, existing: ConnectionRow | null, save: ConnectionSave) {
  let status = 400
  const submission = await parseWithZod(formData, {
    async: true,
    schema: buildConnectionFormSchema(definition).transform(async (value, ctx) => {
      try {
        const answers = restoreMaskedSecrets(definition, value as ConnectionFormValues, existing)
        const row = connectionRowFromForm(definition, answers)
        await save(row)
        return row
      } catch (error) {
        if (error instanceof ConnectionSaveRefusal) {
          status = error.status
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: error.field ? error.field.split('.') : [], message: error.message })
          return z.NEVER
        }
        if (error instanceof NotificationUrlError) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: error.field ? [error.field] : [], message: error.message })
          return z.NEVER
        }
        throw error
      }
    }),
  })
  return { submission, status }
}
