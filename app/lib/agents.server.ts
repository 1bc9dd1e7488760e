import { z } from 'zod'
import { dbClient, requireData } from '#app/lib/data-client.server.ts'
import { apiJson, type ApiArgs } from '#app/lib/gateway.server.ts'

/**
 * Agents (spec 000 §9, http-api §2.7.2): the list reads `agents_summary`, generation calls
 * `POST /agent/generate`, edits and removal write `agents` through the data API.
 */

export type AgentRow = {
  id: string
  name: string
  description: string | null
  properties: Record<string, unknown> | null
  last_seen: string | null
  status: string | null
  checks_count: number | null
  config_count: number | null
  components_count: number | null
  created_at: string | null
}

const AGENT_COLUMNS = 'id,name,description,properties,last_seen,status,checks_count,config_count,components_count,created_at'

export async function listAgents(args: ApiArgs): Promise<AgentRow[]> {
  return requireData(await dbClient(args).from('agents_summary').select(AGENT_COLUMNS).order('name').returns<AgentRow[]>())
}

const GeneratedSchema = z.object({ id: z.string(), username: z.string(), access_token: z.string().min(1) })
export type GeneratedAgent = z.infer<typeof GeneratedSchema>

export async function generateAgent(args: ApiArgs, input: { name: string; properties: Record<string, string> }): Promise<GeneratedAgent> {
  const { data } = await apiJson<unknown>(args, '/agent/generate', { method: 'POST', json: input })
  return GeneratedSchema.parse(data)
}

export async function updateAgent(args: ApiArgs, id: string, patch: { description: string | null; properties: Record<string, string> }): Promise<void> {
  requireData(await dbClient(args).from('agents').update(patch).eq('id', id).is('deleted_at', null))
}

/** Soft delete: the database expires the agent's tokens (and cleans up its rows when `cleanup` is set). */
export async function deleteAgent(args: ApiArgs, id: string): Promise<void> {
  requireData(await dbClient(args).from('agents').update({ deleted_at: new Date().toISOString() }).eq('id', id).is('deleted_at', null))
}
