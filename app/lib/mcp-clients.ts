import { MCP_API_PATH } from '#contract/mcp/mcp-api.ts'

/**
 * How each MCP client the console names (spec 002 §2: Claude Desktop, Claude Code, VS Code
 * Copilot, Cline, Continue.dev, Zed Editor, Direct HTTP) is pointed at this server's MCP endpoint
 * with an access token. Every snippet is in the client's own configuration format, so it can be
 * pasted as it is; the formats are the clients' documented ones, not ours, and must follow them.
 */

/** The key the server is listed under in each client's configuration. */
export const MCP_SERVER_NAME = 'lookout'

/**
 * The contract's first call (http-api §2.1.11): `initialize` with protocol version 2024-11-05 and
 * no capabilities. The server accepts it without `clientInfo` (decision 027, point 6).
 */
export const MCP_FIRST_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2024-11-05', capabilities: {} },
} as const

/** What streamable HTTP asks a client to accept: the server may answer JSON or an event stream. */
export const MCP_ACCEPT = 'application/json, text/event-stream'

export type McpClientId = 'claude-desktop' | 'claude-code' | 'vscode' | 'cline' | 'continue' | 'zed' | 'http'

export type McpClientSetup = {
  id: McpClientId
  label: string
  /** Where the snippet goes, told to the person above it. */
  where: string
  format: 'json' | 'yaml' | 'shell'
  code: string
}

/** `<public origin>/api/mcp`: the endpoint as people outside reach it. */
export function getMcpEndpointUrl(publicOrigin: string): string {
  return `${publicOrigin.replace(/\/+$/, '')}${MCP_API_PATH}`
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

/** A POSIX shell double-quoted word: `\`, `"`, `$` and backquote are the characters it expands. */
function shellDoubleQuoted(value: string): string {
  return `"${value.replace(/[\\"$`]/g, (character) => `\\${character}`)}"`
}

function shellSingleQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}

/** mcp-remote refuses plain HTTP except to the local machine unless told it is meant. */
function needsAllowHttp(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  return protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)
}

/**
 * The setup of every client for `url` and `token` (pass a masked token to get what is shown
 * before the person reveals it). YAML is written as JSON-quoted scalars, which YAML reads as its
 * own double-quoted strings, so no value can break the document.
 */
export function buildMcpClientSetups(url: string, token: string): McpClientSetup[] {
  const authorization = `Bearer ${token}`
  // Claude Desktop (and Cursor) on Windows pass arguments with spaces to npx unescaped, so
  // mcp-remote's documented way is the header built from an environment variable.
  const mcpRemoteArgs = ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}', ...(needsAllowHttp(url) ? ['--allow-http'] : [])]
  return [
    {
      id: 'claude-desktop',
      label: 'Claude Desktop',
      where: 'Settings → Developer → Edit Config opens claude_desktop_config.json; merge this in and restart Claude Desktop (it runs mcp-remote through npx, so Node.js is needed).',
      format: 'json',
      code: json({ mcpServers: { [MCP_SERVER_NAME]: { command: 'npx', args: mcpRemoteArgs, env: { AUTH_HEADER: authorization } } } }),
    },
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal; add --scope user to offer it in every project.',
      format: 'shell',
      code: `claude mcp add --transport http ${MCP_SERVER_NAME} ${shellDoubleQuoted(url)} --header ${shellDoubleQuoted(`Authorization: ${authorization}`)}`,
    },
    {
      id: 'vscode',
      label: 'VS Code Copilot',
      where: 'Save as .vscode/mcp.json in the workspace (or run "MCP: Open User Configuration"), then start the server from the file and use it in Copilot Chat\'s agent mode.',
      format: 'json',
      code: json({ servers: { [MCP_SERVER_NAME]: { type: 'http', url, headers: { Authorization: authorization } } } }),
    },
    {
      id: 'cline',
      label: 'Cline',
      where: 'MCP Servers → Configure → Configure MCP Servers opens cline_mcp_settings.json; merge this in.',
      format: 'json',
      code: json({ mcpServers: { [MCP_SERVER_NAME]: { type: 'streamableHttp', url, headers: { Authorization: authorization }, disabled: false, autoApprove: [] } } }),
    },
    {
      id: 'continue',
      label: 'Continue.dev',
      where: 'Save as .continue/mcpServers/lookout.yaml in the workspace (MCP tools are used in agent mode).',
      format: 'yaml',
      code: [
        'name: Lookout',
        'version: 0.0.1',
        'schema: v1',
        'mcpServers:',
        '  - name: Lookout',
        '    type: streamable-http',
        `    url: ${JSON.stringify(url)}`,
        '    requestOptions:',
        '      headers:',
        `        Authorization: ${JSON.stringify(authorization)}`,
        '',
      ].join('\n'),
    },
    {
      id: 'zed',
      label: 'Zed Editor',
      where: 'Merge into Zed\'s settings.json (command "zed: open settings"); the server shows under the Agent Panel\'s settings.',
      format: 'json',
      code: json({ context_servers: { [MCP_SERVER_NAME]: { url, headers: { Authorization: authorization } } } }),
    },
    {
      id: 'http',
      label: 'Direct HTTP',
      where: 'Any HTTP client: every call is a JSON-RPC 2.0 POST with the token. This is the first one, initialize.',
      format: 'shell',
      code: [
        `curl -X POST ${shellSingleQuoted(url)} \\`,
        `  -H ${shellSingleQuoted(`Authorization: ${authorization}`)} \\`,
        `  -H ${shellSingleQuoted(`Accept: ${MCP_ACCEPT}`)} \\`,
        `  -H 'Content-Type: application/json' \\`,
        `  -d ${shellSingleQuoted(JSON.stringify(MCP_FIRST_CALL))}`,
      ].join('\n'),
    },
  ]
}

/**
 * The scopes the Setup MCP dialog ticks (the create-token form's `object/action` values): `mcp`
 * to connect at all, and reading what the tools answer from. A scoped token is denied everything
 * else (http-api §2.1.3), so without the reads every tool would be refused; running playbooks is
 * left for the person to add.
 */
export const MCP_TOKEN_DEFAULT_SCOPE = ['mcp/*', 'catalog/read', 'canaries/read', 'playbooks/read'] as const
