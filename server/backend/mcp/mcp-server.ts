import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Logger } from 'pino'
import { MCP_TOOL_INPUTS, MCP_VIEW_URI_TEMPLATE } from '#contract/mcp/mcp-api.ts'
import { CatalogInputError } from '#server/backend/catalog/catalog-input.ts'
import { PlaybookError } from '#server/backend/playbooks/playbook-model.ts'
import {
  getCheckHistory,
  getConfig,
  getIncident,
  getView,
  listFailingChecks,
  listIncidents,
  listPlaybooks,
  listViews,
  McpToolError,
  runPlaybook,
  searchCatalog,
  type McpCaller,
} from './mcp-queries.ts'

/**
 * The MCP server one request talks to (docs/decisions/027: stateless, one server per request),
 * bound to its caller: every tool and resource reads as that caller.
 */

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const

/** What a client may be told: refusals and input errors verbatim, anything else as a bare failure. */
function publicMessage(error: unknown, logger: Logger): string {
  if (error instanceof McpToolError || error instanceof PlaybookError || error instanceof CatalogInputError) return error.message
  logger.error({ err: error }, 'mcp tool failed')
  return 'internal error'
}

function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] }
}

export function createMcpServer(caller: McpCaller, options: { version: string; logger: Logger }): McpServer {
  const { logger } = options
  const server = new McpServer(
    { name: 'lookout', title: 'Lookout', version: options.version },
    {
      instructions:
        'Lookout answers from its configuration catalog, health checks, incidents and playbooks, limited to what the signed-in caller may read. Ids are uuids.',
    },
  )

  const tool = <Input>(run: (input: Input) => Promise<unknown>) =>
    async (input: Input): Promise<CallToolResult> => {
      try {
        return answer(await run(input))
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: publicMessage(error, logger) }] }
      }
    }

  server.registerTool(
    'search_catalog',
    {
      title: 'Search the catalog',
      description: 'Config items (Kubernetes objects, cloud resources, …) matching a search, type and tags.',
      inputSchema: MCP_TOOL_INPUTS.search_catalog,
      annotations: READ_ONLY,
    },
    tool((input) => searchCatalog(caller, input)),
  )
  server.registerTool(
    'get_config',
    {
      title: 'Get a config item',
      description: 'One config item with its configuration document and its most recent changes.',
      inputSchema: MCP_TOOL_INPUTS.get_config,
      annotations: READ_ONLY,
    },
    tool((input) => getConfig(caller, input)),
  )
  server.registerTool(
    'list_failing_checks',
    {
      title: 'List failing health checks',
      description: 'Health checks whose latest result is unhealthy (silenced checks left out), with their last message and error.',
      inputSchema: MCP_TOOL_INPUTS.list_failing_checks,
      annotations: READ_ONLY,
    },
    tool((input) => listFailingChecks(caller, input)),
  )
  server.registerTool(
    'get_check_history',
    {
      title: 'Get a health check and its history',
      description: "One health check and its latest results, newest first.",
      inputSchema: MCP_TOOL_INPUTS.get_check_history,
      annotations: READ_ONLY,
    },
    tool((input) => getCheckHistory(caller, input)),
  )
  server.registerTool(
    'list_incidents',
    {
      title: 'List incidents',
      description: 'Incidents, newest first; without a status, only those not yet resolved or closed.',
      inputSchema: MCP_TOOL_INPUTS.list_incidents,
      annotations: READ_ONLY,
    },
    tool((input) => listIncidents(caller, input)),
  )
  server.registerTool(
    'get_incident',
    {
      title: 'Get an incident',
      description: 'One incident with its hypotheses and evidence.',
      inputSchema: MCP_TOOL_INPUTS.get_incident,
      annotations: READ_ONLY,
    },
    tool((input) => getIncident(caller, input)),
  )
  server.registerTool(
    'list_playbooks',
    {
      title: 'List playbooks',
      description: 'Playbooks with their parameters and whether the caller may run them; with a resource id, only those offered for it.',
      inputSchema: MCP_TOOL_INPUTS.list_playbooks,
      annotations: READ_ONLY,
    },
    tool((input) => listPlaybooks(caller, input)),
  )
  server.registerTool(
    'run_playbook',
    {
      title: 'Run a playbook',
      description: 'Starts a playbook run, optionally against one config item, check or component; answers the run id. Needs playbook:run.',
      inputSchema: MCP_TOOL_INPUTS.run_playbook,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    tool((input) => runPlaybook(caller, input)),
  )

  const viewUri = (namespace: string, name: string) => `view://${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`
  server.registerResource(
    'views',
    new ResourceTemplate(MCP_VIEW_URI_TEMPLATE, {
      list: async () => ({
        resources: (await listViews(caller)).map((view) => ({
          uri: viewUri(view.namespace, view.name),
          name: `${view.namespace}/${view.name}`,
          title: viewTitle(view.spec) ?? view.name,
          mimeType: 'application/json',
        })),
      }),
    }),
    { title: 'Custom views', description: 'Stored definitions of custom views (queries, columns, panels).', mimeType: 'application/json' },
    async (uri, variables) => {
      const namespace = decodeURIComponent(String(variables.namespace ?? ''))
      const name = decodeURIComponent(String(variables.name ?? ''))
      let view
      try {
        view = await getView(caller, namespace, name)
      } catch (error) {
        throw new Error(publicMessage(error, logger))
      }
      const definition = { id: view.id, namespace: view.namespace, name: view.name, labels: view.labels ?? {}, spec: view.spec, updated_at: view.updated_at ?? view.created_at }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(definition, null, 2) }] }
    },
  )
  return server
}

function viewTitle(spec: unknown): string | undefined {
  const display = (spec as { display?: { title?: unknown } } | null)?.display
  return typeof display?.title === 'string' && display.title ? display.title : undefined
}
