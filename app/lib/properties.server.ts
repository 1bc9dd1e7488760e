import { z } from 'zod'
import { dbClient, requireData } from '#app/lib/data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { PropertyRow } from '#app/lib/feature-flag-form-shapes.ts'

/**
 * Properties (feature flags and settings; reference http-api §2.1.12, data-model §10.5): the
 * list comes from `GET /api/properties` (the server's own properties first, then the database's
 * not already listed), writes go to the `properties` table through the data client. Deleting is
 * soft (`deleted_at`), like every delete of the platform, so adding a name again revives the row.
 */

const PropertyListSchema = z.array(z.unknown())
const PropertySchema = z.object({
  name: z.string().min(1),
  value: z.unknown(),
  source: z.string().nullish(),
  description: z.string().nullish(),
})

function valueText(value: unknown): string {
  if (typeof value === 'string') return value
  return JSON.stringify(value ?? null)
}

/** Every property by name; entries without a name are left out rather than failing the list. */
export async function listProperties(args: ApiArgs): Promise<PropertyRow[]> {
  const { data } = await apiJson<unknown>(args, '/properties')
  const list = PropertyListSchema.safeParse(data)
  if (!list.success) throw new GatewayError(502, 'The properties answer was not a list.', 'http', data)
  return list.data
    .flatMap((entry) => {
      const parsed = PropertySchema.safeParse(entry)
      if (!parsed.success) return []
      const { name, value, source, description } = parsed.data
      return [{ name, value: valueText(value), source: source ?? '', description: description ?? '' }]
    })
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** Thrown when a create names a live property or an update/delete names none. */
export class PropertyConflict extends Error {
  constructor(
    readonly field: 'name',
    message: string,
  ) {
    super(message)
    this.name = 'PropertyConflict'
  }
}

async function liveNames(args: ApiArgs, name: string): Promise<string[]> {
  const rows = requireData(await dbClient(args).from('properties').select('name').eq('name', name).is('deleted_at', null).returns<{ name: string }[]>())
  return (rows ?? []).map((row) => row.name)
}

/** Adds a property; a soft-deleted row of the same name comes back with the new value. */
export async function createProperty(args: ApiArgs, input: { name: string; value: string }): Promise<void> {
  if ((await liveNames(args, input.name)).length) throw new PropertyConflict('name', `A property named ${input.name} already exists`)
  requireData(
    await dbClient(args)
      .from('properties')
      .upsert({ name: input.name, value: input.value, deleted_at: null, updated_at: new Date().toISOString() }, { onConflict: 'name' }),
  )
}

export async function updateProperty(args: ApiArgs, input: { name: string; value: string }): Promise<void> {
  const rows = requireData(
    await dbClient(args)
      .from('properties')
      .update({ value: input.value, updated_at: new Date().toISOString() })
      .eq('name', input.name)
      .is('deleted_at', null)
      .select('name'),
  )
  if (!rows?.length) throw new PropertyConflict('name', `No property named ${input.name}`)
}

export async function deleteProperty(args: ApiArgs, name: string): Promise<void> {
  const rows = requireData(
    await dbClient(args).from('properties').update({ deleted_at: new Date().toISOString() }).eq('name', name).is('deleted_at', null).select('name'),
  )
  if (!rows?.length) throw new PropertyConflict('name', `No property named ${name}`)
}

/** Sets `<feature>.disable` to true or false (a row either way, so the choice is visible in the list). */
export async function setFeatureDisabled(args: ApiArgs, flag: string, disabled: boolean): Promise<void> {
  requireData(
    await dbClient(args)
      .from('properties')
      .upsert({ name: flag, value: String(disabled), deleted_at: null, updated_at: new Date().toISOString() }, { onConflict: 'name' }),
  )
}
