import { z } from 'zod'
import { dbClient, requireData } from '#app/lib/data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from '#app/lib/gateway.server.ts'
import type { CreateTokenInput } from '#app/lib/token-scopes.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * Access tokens (spec 002 §3, §5): the /auth token endpoints, not PostgREST tables, so they are
 * typed functions here rather than calls of the data client.
 */

const TokenAnswerSchema = z.object({
  id: z.string(),
  name: z.string(),
  person_id: z.string().nullish(),
  created_by: z.string().nullish(),
  created_at: z.string().nullish(),
  expires_at: z.string().nullish(),
  person: z.object({ id: z.string().nullish(), name: z.string().nullish(), email: z.string().nullish(), type: z.string().nullish() }).nullish(),
})

type TokenAnswer = z.infer<typeof TokenAnswerSchema>

/** A token as the list shows it: `owner` is the person who holds it (name, e-mail below). */
export type TokenRow = {
  id: string
  name: string
  owner_name: string | null
  owner_email: string | null
  created_at: string | null
  expires_at: string | null
}

type Person = { id: string; name: string | null; email: string | null }

/** `dana+token:ci-bot@example.org` (the synthetic person of a scoped token) → `dana@example.org`. */
export function creatorEmailOf(tokenEmail: string | null | undefined): string | null {
  const match = /^([^+@]+)\+token:[^@]*@(.+)$/.exec(tokenEmail ?? '')
  return match ? `${match[1]}@${match[2]}` : null
}

/**
 * Who owns a token. A scoped token acts as a synthetic person "<name> (Token)", so its owner is
 * the creator (`created_by`); when the API leaves that out (Mission Control loads only a few
 * columns) the creator's address is read back from the synthetic person's e-mail. A token
 * issued as a person (kubeconfig) is owned by that person.
 */
function ownerOf(token: TokenAnswer, people: Map<string, Person>): { name: string | null; email: string | null } {
  const creator = token.created_by ? people.get(token.created_by) : undefined
  if (creator) return { name: creator.name || creator.email, email: creator.email }
  if (token.person?.type !== 'access_token' && token.person?.name) return { name: token.person.name, email: token.person.email ?? null }
  const email = creatorEmailOf(token.person?.email)
  return { name: email, email }
}

/** Every token with its owner; rows that do not have the expected shape are left out, not crashed on. */
export async function listTokens(args: ApiArgs): Promise<TokenRow[]> {
  const { data } = await apiJson<{ payload?: unknown }>(args, '/auth/tokens')
  if (!Array.isArray(data?.payload)) return []
  const tokens = data.payload.flatMap((row) => {
    const parsed = TokenAnswerSchema.safeParse(row)
    return parsed.success ? [parsed.data] : []
  })
  const people = await peopleById(args, [...new Set(tokens.flatMap((token) => (token.created_by ? [token.created_by] : [])))])
  return tokens.map((token) => {
    const owner = ownerOf(token, people)
    return { id: token.id, name: token.name, owner_name: owner.name, owner_email: owner.email, created_at: token.created_at ?? null, expires_at: token.expires_at ?? null }
  })
}

/** Names of the given people; none when the list cannot be read (the owner then falls back to the token's own data). */
async function peopleById(args: ApiArgs, ids: string[]): Promise<Map<string, Person>> {
  const valid = ids.filter((id) => isUuid(id))
  if (!valid.length) return new Map()
  try {
    const rows = requireData(await dbClient(args).from('people').select('id,name,email').in('id', valid).returns<Person[]>())
    return new Map((rows ?? []).map((person) => [person.id, person]))
  } catch (error) {
    if (error instanceof GatewayError) return new Map()
    throw error
  }
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
