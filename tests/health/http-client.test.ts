import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpRequest } from '#server/backend/health/checks/http-client.ts'

/**
 * Plain-http checks run on undici, the rest on node:http (http-client.ts). A request carrying
 * a `Connection` header goes through node:http, so the same request with and without it must
 * come back the same: headers merged alike, the same failures in the same words.
 */
const RESPONSES: Record<string, (socket: net.Socket, request: string) => void> = {
  '/dup': (socket) =>
    socket.end(
      'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n' +
        'X-Many: 1\r\nx-many: 2\r\nCookie: c=1\r\nCookie: d=2\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok',
    ),
  '/early': (socket) =>
    socket.end('HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 201 Made It\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi'),
  '/echo': (socket, request) => {
    const lines = request.split('\r\n').slice(1).filter(Boolean).map((line) => line.toLowerCase())
    const seen = lines.filter((line) => line.startsWith('user-agent') || line.startsWith('x-') || line.startsWith('authorization')).sort()
    const body = JSON.stringify(seen)
    socket.end(`HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
  },
  '/hangup': (socket) => socket.destroy(),
  '/midbody': (socket) => {
    socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')
    setTimeout(() => socket.destroy(), 20)
  },
  '/garbage': (socket) => socket.end('NOT-HTTP nonsense\r\n\r\n'),
  '/silent': () => undefined,
}

let server: net.Server
let base = ''
const sockets = new Set<net.Socket>()

beforeAll(async () => {
  server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let buffered = ''
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1')
      if (!buffered.includes('\r\n\r\n')) return
      const path = buffered.split(' ')[1] ?? '/'
      const respond = RESPONSES[path]
      if (respond) respond(socket, buffered)
      else socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      buffered = ''
    })
    socket.on('error', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})

type Outcome = { status?: number; statusText?: string; headers?: Record<string, string>; body?: string; error?: string; code?: unknown; name?: string }

async function outcome(path: string, options: Parameters<typeof httpRequest>[1] = {}): Promise<Outcome> {
  try {
    const response = await httpRequest(`${base}${path}`, options)
    return { status: response.status, statusText: response.statusText, headers: response.headers, body: response.body.toString() }
  } catch (error) {
    return { error: (error as Error).message, code: (error as { code?: unknown }).code, name: (error as Error).name }
  }
}

/** The same request through both paths: undici, and node:http (chosen by the Connection header). */
async function bothWays(path: string, options: Parameters<typeof httpRequest>[1] = {}) {
  const fast = await outcome(path, options)
  const node = await outcome(path, { ...options, headers: { ...options.headers, Connection: 'close' } })
  return { fast, node }
}

describe('http-client: undici and node:http answer alike', () => {
  it('merges repeated response headers by node rules', async () => {
    const { fast, node } = await bothWays('/dup')
    expect(fast).toEqual(node)
    expect(fast.headers).toMatchObject({ 'content-type': 'text/plain', 'set-cookie': 'a=1, b=2', 'x-many': '1, 2', cookie: 'c=1; d=2' })
  })

  it('skips 1xx answers and keeps the status text', async () => {
    const { fast, node } = await bothWays('/early')
    expect(fast).toEqual(node)
    expect(fast).toMatchObject({ status: 201, statusText: 'Made It', body: 'hi' })
  })

  it('sends one header per case-insensitive name, the last given', async () => {
    const { fast, node } = await bothWays('/echo', { headers: { 'User-Agent': 'mine', 'X-One': 'a', 'x-one': 'b' } })
    expect(fast).toEqual(node)
    expect(JSON.parse(fast.body!)).toEqual(['user-agent: mine', 'x-one: b'])
  })

  it('words a closed socket and a cut body as node:http does', async () => {
    for (const path of ['/hangup', '/midbody']) {
      const { fast, node } = await bothWays(path)
      expect(fast, path).toEqual(node)
      expect(fast.code, path).toBe('ECONNRESET')
    }
  })

  it('fails a response that is not HTTP with the parser code node:http gives', async () => {
    // Both parse with llhttp, but undici bundles its own build, whose reason text may be worded
    // differently from node's: the code and the "Parse Error:" prefix are what stay the same.
    const { fast, node } = await bothWays('/garbage')
    expect({ code: fast.code, name: fast.name }).toEqual({ code: node.code, name: node.name })
    expect(fast.code).toBe('HPE_INVALID_CONSTANT')
    expect(fast.error).toMatch(/^Parse Error: /)
    expect(node.error).toMatch(/^Parse Error: /)
  })

  it('fails at once on abort, even while waiting for an answer', async () => {
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 50)
    const fast = await outcome('/silent', { signal: abort.signal })
    const again = new AbortController()
    setTimeout(() => again.abort(), 50)
    const node = await outcome('/silent', { signal: again.signal, headers: { Connection: 'close' } })
    expect(fast).toEqual(node)
    expect(fast).toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' })
  })

  it('rejects a bad header value and a refused connection with node messages', async () => {
    const { fast, node } = await bothWays('/echo', { headers: { 'X-Bad': 'a\nb' } })
    expect(fast).toEqual(node)
    expect(fast.code).toBe('ERR_INVALID_CHAR')
    const closed = net.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as net.AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const refusedFast = await httpRequest(`http://127.0.0.1:${port}/`).catch((error: Error) => error.message)
    const refusedNode = await httpRequest(`http://127.0.0.1:${port}/`, { headers: { Connection: 'close' } }).catch((error: Error) => error.message)
    expect(refusedFast).toBe(refusedNode)
    expect(refusedFast).toMatch(/ECONNREFUSED/)
  })
})
