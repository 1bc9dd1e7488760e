import { z } from 'zod'
import { apiJson, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { CreateTokenInput } from '#app/lib/token-scopes.ts'

/**
 * Access tokens (spec 002 §3, §5): the /auth token endpoints, not PostgREST tables, so they are
 * typed functions here rather than calls of the data client.
 */

const TokenRowSchema = z.object({
  id: z.string(),
  name: z.string(),
  person_name: z.string().nullish(),
  created_at: z.string().nullish(),
  expires_at: z.string().nullish(),
})

export type TokenRow = z.infer<typeof TokenRowSchema>

/** The caller's tokens; rows that do not have the expected shape are left out, not crashed on. */
export async function listTokens(args: ApiArgs): Promise<TokenRow[]> {
  const { data } = await apiJson<{ payload?: unknown }>(args, '/auth/tokens')
  if (!Array.isArray(data?.payload)) return []
  return data.payload.flatMap((row) => {
    const parsed = TokenRowSchema.safeParse(row)
    return parsed.success ? [parsed.data] : []
  })
}

/** Creates a token and returns its secret (shown once), or null when the API answered without one. */
export async function createToken(args: ApiArgs, input: CreateTokenInput): Promise<string | null> {
  const { data } = await apiJson<{ payload?: { token?: unknown } }>(args, '/auth/create_token', { method: 'POST', json: input })
  const token = data?.payload?.token
  return typeof token === 'string' && token ? token : null
}

export async function deleteToken(args: ApiArgs, id: string): Promise<void> {
  await apiJson(args, `/auth/token/${encodeURIComponent(id)}`, { method: 'DELETE' })
}
