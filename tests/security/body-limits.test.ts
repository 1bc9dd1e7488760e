import { readFileSync } from 'node:fs'
import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProductionConsole, type ProductionConsole } from '#tests/support/production-console.ts'

/**
 * Finding 7 of the security review: console form routes read any body whole, and an anonymous
 * 100 MB post cost the server its size in memory (or at least the time to drain it). Here a
 * real production server (built console, PGlite or PostgreSQL) takes 100 MB streams from an
 * anonymous client: each must be refused while the body is still arriving, with the
 * connection closed, and the server's resident memory must barely move.
 */

const HUNDRED_MB = 100 * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'a')

let server: ProductionConsole

/** tsx runs the entry point in a child of the process startProcess spawned. */
function serverPid(): number {
  const wrapper = server.child.pid!
  const children = readFileSync(`/proc/${wrapper}/task/${wrapper}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
  return children.length > 0 ? Number(children[0]) : wrapper
}

function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match![1])
}

type Outcome = { status?: number; ms: number; sentBytes: number; body: string; error?: string }

/**
 * Streams up to 100 MB (announced, or chunked when `announce` is false) and stops as soon as the
 * server answers or closes the connection.
 */
function stream(url: string, headers: Record<string, string>, announce: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = Date.now()
    let status: number | undefined
    let body = ''
    let done = false
    const req = http.request(url, {
      method: 'POST',
      headers: { ...headers, ...(announce ? { 'content-length': String(HUNDRED_MB) } : {}) },
    })
    const finish = (error?: Error) => {
      if (done) return
      done = true
      const sentBytes = req.socket?.bytesWritten ?? 0
      req.destroy()
      resolve({ status, ms: Date.now() - started, sentBytes, body, error: error?.message })
    }
    req.on('response', (res) => {
      status = res.statusCode
      res.setEncoding('utf8')
      res.on('data', (text: string) => (body += text))
      res.on('end', () => finish())
      res.on('error', (error) => finish(error))
    })
    req.on('error', (error) => {
      // A reset after the answer arrived is the server closing instead of draining.
      if (status !== undefined) return
      finish(error)
    })
    req.on('close', () => setTimeout(() => finish(), 50))
    let written = 0
    const pump = () => {
      while (!done && written < HUNDRED_MB) {
        written += CHUNK.length
        if (!req.write(CHUNK)) {
          req.once('drain', pump)
          return
        }
      }
      if (!done) req.end()
    }
    pump()
  })
}

beforeAll(async () => {
  server = await startProductionConsole('body-limits', { LOOKOUT_BOOTSTRAP_TOKEN: 'body-limits-token-0123456789abcdef' })
}, 300_000)

afterAll(async () => {
  await server?.close()
})

describe('a 100 MB anonymous post costs no memory', () => {
  const cases: Array<{ name: string; path: string; headers: Record<string, string>; announce: boolean; status: number }> = [
    { name: 'announced, to a console form route', path: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, announce: true, status: 413 },
    // The sign-out action reads its form first thing, so the counting stream has to stop it.
    { name: 'chunked, to a console form route', path: '/logout', headers: { 'content-type': 'application/x-www-form-urlencoded' }, announce: false, status: 413 },
    { name: 'chunked multipart, to a console route', path: '/logout', headers: { 'content-type': 'multipart/form-data; boundary=x' }, announce: false, status: 413 },
    { name: 'announced, to /api/db', path: '/api/db/checks', headers: { 'content-type': 'application/json' }, announce: true, status: 413 },
    { name: 'chunked, to /api/db (no credentials)', path: '/api/db/checks', headers: { 'content-type': 'application/json' }, announce: false, status: 401 },
    { name: 'chunked, to the public sign-in API', path: '/api/auth/login', headers: { 'content-type': 'application/json' }, announce: false, status: 413 },
    { name: 'chunked, to an identity flow', path: '/api/.ory/self-service/login?flow=00000000-0000-4000-8000-000000000000', headers: { 'content-type': 'application/x-www-form-urlencoded' }, announce: false, status: 413 },
    { name: 'chunked text/plain, to the canary API', path: '/api/canary/api/canaries', headers: { 'content-type': 'text/plain' }, announce: false, status: 401 },
  ]

  it('refuses each stream early, closes the connection and keeps RSS flat', async () => {
    const pid = serverPid()
    // Warm up the paths once so lazily loaded modules do not count as growth.
    for (const entry of cases) await stream(`${server.url}${entry.path}`, entry.headers, true)
    const before = rssKb(pid)
    for (const entry of cases) {
      const outcome = await stream(`${server.url}${entry.path}`, entry.headers, entry.announce)
      expect(outcome.error, `${entry.name}: ${outcome.error}`).toBeUndefined()
      expect(outcome.status, `${entry.name}: ${outcome.body.slice(0, 200)}`).toBe(entry.status)
      expect(outcome.ms, entry.name).toBeLessThan(10_000)
      // Closed, not drained: the server stopped reading long before 100 MB.
      expect(outcome.sentBytes, entry.name).toBeLessThan(30 * 1024 * 1024)
    }
    const grownMb = (rssKb(pid) - before) / 1024
    expect(grownMb).toBeLessThan(30)
  }, 180_000)

  it('still takes a form within the limit', async () => {
    const response = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `identifier=someone%40example.com&filler=${'a'.repeat(30 * 1024)}`,
      redirect: 'manual',
    })
    expect(response.status).not.toBe(413)
    expect(response.status).toBeLessThan(500)
  })
})
