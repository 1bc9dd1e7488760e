import { dbClient, requireData } from './data-client.server.ts'
import type { ApiArgs } from './gateway.server.ts'
import { createResource } from './resource-editor.server.ts'
import { TOPOLOGY_KIND, type TopologyPayload } from './topology-form.ts'

/**
 * The topology form's write (spec 001 §2): a new topology is created as the UI's (source UI,
 * created by the signed-in person); an existing one takes every field of the form, its name and
 * namespace included. The API validates the spec again and refuses a name in use (409).
 */
export async function saveTopology(args: ApiArgs, id: string | null, payload: TopologyPayload, userId: string): Promise<string | null> {
  if (!id) return createResource(args, TOPOLOGY_KIND, payload, userId)
  requireData(await dbClient(args).from('topologies').update({ name: payload.name, namespace: payload.namespace, labels: payload.labels, spec: payload.spec }).eq('id', id).select('id'))
  return id
}
