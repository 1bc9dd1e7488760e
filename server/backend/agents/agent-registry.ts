import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { Db, Queryable } from '#server/db/client.ts'
import { LOCAL_AGENT_ID } from '#server/backend/health/canary-sync.ts'
import { issuePersonToken } from '#server/backend/rbac/access-tokens.ts'

const TOKEN_LIFETIME_MS = 365 * 86_400_000

export const GenerateAgentSchema = z.object({
  name: z.string().trim().min(1, 'name is required').max(200, 'name is too long (200 characters at most)'),
  properties: z.record(z.string(), z.unknown()).optional(),
  auto_renew: z.boolean().optional(),
})
export type GenerateAgentInput = z.infer<typeof GenerateAgentSchema>

export class AgentError extends Error {
  constructor(
    readonly status: 400 | 403 | 404,
    message: string,
  ) {
    super(message)
  }
}

export type GeneratedAgent = { id: string; username: string; access_token: string; agent_id: string; name: string }

/**
 * `POST /agent/generate` (http-api §2.7.2): a person of type agent, a one-year access token
 * acting as it (stored hashed, shown once here), role `agent`, and the agents row naming the person.
 * One transaction, so a name clash leaves no orphan person or token behind.
 */
export async function generateAgent(db: Db, input: GenerateAgentInput, createdBy: string): Promise<GeneratedAgent> {
  const username = `agent-${randomBytes(8).toString('hex')}`
  return db.transaction(async (tx) => {
    const clash = await tx.query('SELECT 1 FROM agents WHERE name = $1 AND deleted_at IS NULL', [input.name])
    if (clash.rows.length > 0) throw new AgentError(400, `an agent named ${input.name} already exists`)
    const person = await tx.query<{ id: string }>(`INSERT INTO people (name, email, type) VALUES ($1, $2, 'agent') RETURNING id::text`, [
      username,
      `${username}@local`,
    ])
    const personId = person.rows[0]!.id
    await tx.query(`INSERT INTO casbin_rule (ptype, v0, v1, v2, v3, v4, v5) VALUES ('g', $1, 'agent', '', '', '', '') ON CONFLICT DO NOTHING`, [personId])
    const agent = await tx.query<{ id: string }>(
      `INSERT INTO agents (name, person_id, username, properties, created_by) VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING id::text`,
      [input.name, personId, username, JSON.stringify(input.properties ?? {}), createdBy],
    )
    const { token } = await issuePersonToken(tx, {
      personId,
      name: username,
      createdBy,
      expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS),
      autoRenew: input.auto_renew ?? false,
    })
    return { id: personId, username, access_token: token, agent_id: agent.rows[0]!.id, name: input.name }
  })
}

/**
 * `POST /agent/token` (`{"AgentName", "auto_renew"}`): a fresh token for an existing agent's
 * person; its earlier tokens stay valid until they expire or the agent is deleted.
 */
export async function issueAgentToken(db: Db, input: { name: string; autoRenew?: boolean }, createdBy: string): Promise<GeneratedAgent> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; person_id: string | null; username: string | null }>(
      'SELECT id::text, person_id::text, username FROM agents WHERE name = $1 AND deleted_at IS NULL',
      [input.name],
    )
    const agent = rows[0]
    if (!agent || !agent.person_id) throw new AgentError(404, `agent ${input.name} not found`)
    const username = agent.username ?? input.name
    const { token } = await issuePersonToken(tx, {
      personId: agent.person_id,
      name: `${username}-${Date.now().toString(36)}`,
      createdBy,
      expiresAt: new Date(Date.now() + TOKEN_LIFETIME_MS),
      autoRenew: input.autoRenew ?? false,
    })
    return { id: agent.person_id, username, access_token: token, agent_id: agent.id, name: input.name }
  })
}

/** The live agent a credential's person stands for, or null (a person, a token, a deleted agent). */
export async function agentOfPerson(db: Queryable, personId: string): Promise<{ id: string; name: string } | null> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id::text, name FROM agents WHERE person_id = $1 AND deleted_at IS NULL AND id <> $2 LIMIT 1`,
    [personId, LOCAL_AGENT_ID],
  )
  return rows[0] ?? null
}
