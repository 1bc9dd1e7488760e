import type { LogSearchAnswer, LogSearchBody } from '#contract/logs/log-search.ts'
import { parseLabelText, type LogSource } from '#app/components/logs/log-vocabulary.ts'
import { dbClient, requireData } from './data-client.server.ts'
import { apiJson, GatewayError, type ApiArgs } from './gateway.server.ts'
import type { LogPageSearch } from './log-search-params.ts'

/** The /logs screen's data: the sources to pick from (`logging_backends`, `components_with_logs`) and `POST /logs`. */

export type LogSources = { backends: { name: string }[]; components: { id: string; name: string; type: string | null }[] }

export async function listLogSources(args: ApiArgs): Promise<LogSources> {
  const client = dbClient(args)
  const [backends, components] = await Promise.all([
    client.from('logging_backends').select('name').is('deleted_at', null).order('name').limit(500).returns<{ name: string }[]>(),
    client.from('components_with_logs').select('id,name,type').order('name').limit(1000).returns<{ id: string; name: string; type: string | null }[]>(),
  ])
  return { backends: requireData(backends) ?? [], components: requireData(components) ?? [] }
}

/** The request body of a page search; a label text that does not parse is the caller's mistake to show. */
export function logSearchBody(source: LogSource, search: LogPageSearch): { body: LogSearchBody; problem: string | null } {
  const { labels, invalid } = parseLabelText(search.labels)
  const body: LogSearchBody = {
    ...(source.kind === 'backend' ? { backend: source.name } : { id: source.id }),
    start: `now-${search.range}`,
    labels,
    ...(search.query ? { query: search.query } : {}),
    limit: search.limit,
  }
  return { body, problem: invalid.length ? `Labels must be name=value pairs separated by commas: ${invalid.join(', ')}` : null }
}

/**
 * One search. The API's refusals (a bad query, a backend that failed or is not found) come back
 * as the message to show beside the form, so the page keeps its filters; anything else throws.
 */
export async function searchLogs(args: ApiArgs, body: LogSearchBody): Promise<{ answer: LogSearchAnswer } | { error: string }> {
  try {
    const { data } = await apiJson<LogSearchAnswer>(args, '/logs', { method: 'POST', json: body })
    return { answer: data }
  } catch (error) {
    if (error instanceof GatewayError && error.kind === 'http' && [400, 404, 502].includes(error.status)) {
      // The backend's bodies are `{error: <code>, message: <what went wrong>}`: the message is for people.
      const message = (error.body as { message?: unknown } | undefined)?.message
      return { error: typeof message === 'string' && message ? message : error.message }
    }
    throw error
  }
}
