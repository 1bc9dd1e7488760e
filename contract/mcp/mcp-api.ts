import { z } from 'zod'
import { UUID_PATTERN } from '#contract/uuid.ts'
import { INCIDENT_SEVERITIES, INCIDENT_STATUSES } from '#contract/incident-vocabulary.ts'

/**
 * The MCP server (http-api §2.1.11): where it is served, who may use it, and the tools' inputs.
 * The server registers these shapes with the MCP SDK (which validates every call against them
 * and publishes them as JSON Schema in tools/list); the console's "Setup MCP" dialog reads the
 * path and tool names from here.
 */

/** Under the gateway as the browser sees it; the platform serves it at `/mcp` too. */
export const MCP_API_PATH = '/api/mcp'

/** The permission every call needs: the caller (for an access token, its person) holds `mcp:use` on `mcp`. */
export const MCP_PERMISSION = { object: 'mcp', action: 'mcp:use' } as const

export function mcpForbiddenMessage(personId: string): string {
  return `forbidden: user ${personId} does not have mcp:use permission`
}

/** CORS of the MCP endpoint (http-api §2.1.11): any origin, bearer credentials only. */
export const MCP_CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, MCP-Protocol-Version, MCP-Session-Id, Last-Event-ID',
  'Access-Control-Expose-Headers': 'WWW-Authenticate, MCP-Session-Id',
}

const uuid = (what: string) => z.string().trim().regex(UUID_PATTERN, `${what} must be a uuid`).transform((value) => value.toLowerCase())
const limit = (fallback: number, most: number) => z.number().int().min(1).max(most).default(fallback)
// Tag keys and values are matched through a label selector: separators and operators stay out.
const tagKey = z.string().regex(/^[A-Za-z0-9_.\-/]{1,253}$/, 'tag keys are letters, digits and _ . - /')
const tagValue = z.string().regex(/^[^,=!()\s]{0,253}$/, 'tag values hold no spaces, commas, = or !')

export const MCP_TOOL_INPUTS = {
  search_catalog: {
    query: z.string().max(2000).optional().describe('Search text: words in the name, or the grammar `name=web* type=Kubernetes::Pod health=unhealthy tag.cluster=prod`'),
    type: z.string().max(200).optional().describe('Config type, e.g. Kubernetes::Pod; `*` wildcards and comma lists allowed'),
    tags: z.record(tagKey, tagValue).optional().describe('Tags every item must carry, e.g. {"cluster": "prod"}'),
    limit: limit(20, 200).describe('Most items to return (default 20)'),
  },
  get_config: {
    id: uuid('id').describe('Config item id'),
    changes: limit(20, 200).describe('How many of its most recent changes to include (default 20)'),
  },
  list_failing_checks: {
    namespace: z.string().max(200).optional().describe('Only checks in this namespace'),
    limit: limit(50, 500).describe('Most checks to return (default 50)'),
  },
  get_check_history: {
    id: uuid('id').describe('Check id'),
    limit: limit(50, 500).describe('Most results to return, newest first (default 50)'),
  },
  list_incidents: {
    status: z.enum(INCIDENT_STATUSES).optional().describe('Only incidents in this status; default: every status but resolved and closed'),
    severity: z.enum(INCIDENT_SEVERITIES).optional(),
    limit: limit(50, 500).describe('Most incidents to return, newest first (default 50)'),
  },
  get_incident: {
    id: z.string().trim().min(1).max(64).describe('Incident id (uuid) or its number, e.g. INC-12'),
  },
  list_playbooks: {
    config_id: uuid('config_id').optional().describe('Only playbooks offered for this config item'),
    check_id: uuid('check_id').optional().describe('Only playbooks offered for this check'),
    component_id: uuid('component_id').optional().describe('Only playbooks offered for this component'),
  },
  run_playbook: {
    id: uuid('id').describe('Playbook id'),
    params: z.record(z.string().max(200), z.union([z.string().max(65536), z.number(), z.boolean()]).transform(String)).optional().describe('Parameter values by name'),
    config_id: uuid('config_id').optional().describe('Run against this config item'),
    check_id: uuid('check_id').optional().describe('Run against this check'),
    component_id: uuid('component_id').optional().describe('Run against this component'),
  },
} as const

export type McpToolName = keyof typeof MCP_TOOL_INPUTS
export const MCP_TOOL_NAMES = Object.keys(MCP_TOOL_INPUTS) as McpToolName[]

/** Views are offered as resources under this scheme: `view://<namespace>/<name>`. */
export const MCP_VIEW_URI_TEMPLATE = 'view://{namespace}/{name}'
