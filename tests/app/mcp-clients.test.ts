import { describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { maskToken } from '#app/components/token-created.tsx'
import { buildMcpClientSetups, getMcpEndpointUrl, MCP_FIRST_CALL, MCP_TOKEN_DEFAULT_SCOPE, type McpClientId, type McpClientSetup } from '#app/lib/mcp-clients.ts'
import { parseScopes } from '#app/lib/token-scopes.ts'

const TOKEN = 'lkt_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ-_'
const URL_ = 'https://lookout.example.org/api/mcp'
const AUTHORIZATION = `Bearer ${TOKEN}`

/** POSIX shell words: quotes, backslash escapes and line continuations, as a shell reads them. */
function shellWords(command: string): string[] {
  const words: string[] = []
  let word: string | null = null
  for (let index = 0; index < command.length; index++) {
    const character = command[index]!
    if (character === '\\' && command[index + 1] === '\n') {
      index++
    } else if (/\s/.test(character)) {
      if (word !== null) words.push(word)
      word = null
    } else if (character === "'") {
      const end = command.indexOf("'", index + 1)
      if (end < 0) throw new Error('unclosed single quote')
      word = (word ?? '') + command.slice(index + 1, end)
      index = end
    } else if (character === '"') {
      let value = ''
      for (index++; command[index] !== '"'; index++) {
        if (index >= command.length) throw new Error('unclosed double quote')
        if (command[index] === '\\' && /[\\"$`]/.test(command[index + 1] ?? '')) index++
        else if (/[$`]/.test(command[index]!)) throw new Error('an unescaped expansion inside double quotes')
        value += command[index]
      }
      word = (word ?? '') + value
    } else if (character === '\\') {
      word = (word ?? '') + (command[++index] ?? '')
    } else {
      word = (word ?? '') + character
    }
  }
  if (word !== null) words.push(word)
  return words
}

function setupsById(url = URL_, token = TOKEN): Record<McpClientId, McpClientSetup> {
  return Object.fromEntries(buildMcpClientSetups(url, token).map((setup) => [setup.id, setup])) as Record<McpClientId, McpClientSetup>
}

describe('MCP client setups', () => {
  it('offers the spec’s seven clients in its order', () => {
    expect(buildMcpClientSetups(URL_, TOKEN).map((setup) => setup.label)).toEqual([
      'Claude Desktop',
      'Claude Code',
      'VS Code Copilot',
      'Cline',
      'Continue.dev',
      'Zed Editor',
      'Direct HTTP',
    ])
  })

  it('builds the endpoint from the public origin and the contract’s path', () => {
    expect(getMcpEndpointUrl('https://lookout.example.org')).toBe(URL_)
    expect(getMcpEndpointUrl('https://lookout.example.org/')).toBe(URL_)
  })

  it('every snippet names the URL and the token', () => {
    for (const setup of buildMcpClientSetups(URL_, TOKEN)) {
      expect(setup.code, setup.id).toContain(URL_)
      expect(setup.code, setup.id).toContain(TOKEN)
      expect(setup.where, setup.id).not.toBe('')
    }
  })

  it('Claude Desktop runs mcp-remote through npx with the header from the environment', () => {
    const config = JSON.parse(setupsById()['claude-desktop'].code) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }
    const server = config.mcpServers.lookout!
    expect(server.command).toBe('npx')
    expect(server.args).toEqual(['-y', 'mcp-remote', URL_, '--header', 'Authorization:${AUTH_HEADER}'])
    expect(server.env).toEqual({ AUTH_HEADER: AUTHORIZATION })
  })

  it('mcp-remote is allowed plain HTTP only where it would refuse it', () => {
    const remote = JSON.parse(setupsById('http://lookout.internal:8080/api/mcp')['claude-desktop'].code) as { mcpServers: { lookout: { args: string[] } } }
    expect(remote.mcpServers.lookout.args).toContain('--allow-http')
    const local = JSON.parse(setupsById('http://localhost:3000/api/mcp')['claude-desktop'].code) as { mcpServers: { lookout: { args: string[] } } }
    expect(local.mcpServers.lookout.args).not.toContain('--allow-http')
  })

  it('Claude Code adds an http transport with the header, as a shell reads it', () => {
    expect(shellWords(setupsById()['claude-code'].code)).toEqual(['claude', 'mcp', 'add', '--transport', 'http', 'lookout', URL_, '--header', `Authorization: ${AUTHORIZATION}`])
  })

  it('VS Code, Cline and Zed read the URL and headers from JSON in their own shapes', () => {
    const setups = setupsById()
    expect(JSON.parse(setups.vscode.code)).toEqual({ servers: { lookout: { type: 'http', url: URL_, headers: { Authorization: AUTHORIZATION } } } })
    expect(JSON.parse(setups.cline.code)).toEqual({
      mcpServers: { lookout: { type: 'streamableHttp', url: URL_, headers: { Authorization: AUTHORIZATION }, disabled: false, autoApprove: [] } },
    })
    expect(JSON.parse(setups.zed.code)).toEqual({ context_servers: { lookout: { url: URL_, headers: { Authorization: AUTHORIZATION } } } })
  })

  it('Continue.dev is a YAML block with a streamable-http server', () => {
    expect(parseYaml(setupsById().continue.code)).toEqual({
      name: 'Lookout',
      version: '0.0.1',
      schema: 'v1',
      mcpServers: [{ name: 'Lookout', type: 'streamable-http', url: URL_, requestOptions: { headers: { Authorization: AUTHORIZATION } } }],
    })
  })

  it('values YAML or a shell would read specially stay literal', () => {
    const url = "https://lookout.example.org/a'b\"c$d`e#f: g/api/mcp"
    const token = 'lkt_ab: #c'
    const setups = setupsById(url, token)
    const yaml = parseYaml(setups.continue.code) as { mcpServers: Array<{ url: string; requestOptions: { headers: { Authorization: string } } }> }
    expect(yaml.mcpServers[0]!.url).toBe(url)
    expect(yaml.mcpServers[0]!.requestOptions.headers.Authorization).toBe(`Bearer ${token}`)
    expect(shellWords(setups['claude-code'].code).slice(6)).toEqual([url, '--header', `Authorization: Bearer ${token}`])
    expect(shellWords(setups.http.code)[3]).toBe(url)
  })

  it('Direct HTTP is the contract’s first call with Accept and Content-Type', () => {
    const words = shellWords(setupsById().http.code)
    expect(words.slice(0, 3)).toEqual(['curl', '-X', 'POST'])
    expect(words[3]).toBe(URL_)
    const headers = words.flatMap((word, index) => (words[index - 1] === '-H' ? [word] : []))
    expect(headers).toEqual([`Authorization: ${AUTHORIZATION}`, 'Accept: application/json, text/event-stream', 'Content-Type: application/json'])
    const body = words[words.indexOf('-d') + 1]!
    expect(JSON.parse(body)).toEqual({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {} } })
    expect(JSON.parse(body)).toEqual(MCP_FIRST_CALL)
  })

  it('with a masked token the snippets carry the mask, never the token', () => {
    const masked = buildMcpClientSetups(URL_, maskToken(TOKEN))
    for (const setup of masked) {
      expect(setup.code).not.toContain(TOKEN)
      expect(setup.code).toContain(URL_)
      expect(setup.code).toContain('•'.repeat(32))
    }
    expect(maskToken('short')).toBe('•••••')
  })

  it('the Setup MCP dialog ticks scopes the create-token form offers, mcp first', () => {
    const scopes = parseScopes([...MCP_TOKEN_DEFAULT_SCOPE])
    expect(scopes).toHaveLength(MCP_TOKEN_DEFAULT_SCOPE.length)
    expect(scopes[0]).toEqual({ subject: '', object: 'mcp', action: '*' })
  })
})
