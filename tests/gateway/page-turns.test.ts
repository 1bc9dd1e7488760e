import http from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { afterEach, describe, expect, it } from 'vitest'
import pino from 'pino'
import { inTurn } from '#server/console.ts'
import { createHttpLogger } from '#server/logger.ts'

/** A page that takes `ms` and records when it ran, behind `inTurn`. */
async function serveSlowPages(concurrency: number, ms: number) {
  const log: Array<{ id: string; start: number; end: number }> = []
  let running = 0
  let peak = 0
  const app = express()
  app.get(
    '/page/:id',
    inTurn(async (req, res) => {
      running += 1
      peak = Math.max(peak, running)
      const start = Date.now()
      await new Promise((resolve) => setTimeout(resolve, ms))
      running -= 1
      log.push({ id: req.params.id!, start, end: Date.now() })
      res.send(`page ${req.params.id}`)
    }, concurrency),
  )
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, log, peak: () => peak, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

describe('page requests in turn (LOOKOUT_PAGE_CONCURRENCY)', () => {
  let close: (() => Promise<void>) | undefined
  afterEach(async () => {
    await close?.()
    close = undefined
  })

  it('runs at most the limit at once and serves every waiting request, first come first served', async () => {
    const pages = await serveSlowPages(2, 40)
    close = pages.close
    const ids = ['a', 'b', 'c', 'd', 'e', 'f']
    const answers: Array<Promise<string>> = []
    for (const id of ids) {
      answers.push(fetch(`${pages.base}/page/${id}`).then((response) => response.text()))
      // Sent one after the other, so the order they arrive in is the order they were sent.
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(await Promise.all(answers)).toEqual(ids.map((id) => `page ${id}`))
    expect(pages.peak()).toBe(2)
    const started = [...pages.log].sort((x, y) => x.start - y.start).map((entry) => entry.id)
    expect(started).toEqual(ids)
  })

  it('does not render a page whose client left while it waited', async () => {
    const pages = await serveSlowPages(1, 150)
    close = pages.close
    const first = fetch(`${pages.base}/page/first`).then((r) => r.text())
    await new Promise((resolve) => setTimeout(resolve, 20))
    const abandoned = new AbortController()
    const gone = fetch(`${pages.base}/page/gone`, { signal: abandoned.signal }).catch(() => 'aborted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    abandoned.abort()
    expect(await gone).toBe('aborted')
    expect(await first).toBe('page first')
    expect(await fetch(`${pages.base}/page/after`).then((r) => r.text())).toBe('page after')
    expect(pages.log.map((entry) => entry.id)).toEqual(['first', 'after'])
  })

  it('logs how long a page waited for its turn', async () => {
    const lines: Array<{ req?: { url?: string }; turnWaitMs?: number }> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) })
    const app = express()
    app.use(createHttpLogger(logger))
    app.get(
      '/page/:id',
      inTurn(async (req, res) => {
        await new Promise((resolve) => setTimeout(resolve, 80))
        res.send(`page ${req.params.id}`)
      }, 1),
    )
    app.get('/api/call', (_req, res) => void res.send('not in turn'))
    const server = http.createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    close = () => new Promise<void>((resolve) => server.close(() => resolve()))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const first = fetch(`${base}/page/first`).then((r) => r.text())
    await new Promise((resolve) => setTimeout(resolve, 10))
    await Promise.all([first, fetch(`${base}/page/second`).then((r) => r.text()), fetch(`${base}/api/call`).then((r) => r.text())])
    const waitOf = (url: string) => lines.find((line) => line.req?.url === url)?.turnWaitMs
    expect(waitOf('/page/first')).toBeLessThan(30)
    // The second page waited while the first took its 80 ms.
    expect(waitOf('/page/second')).toBeGreaterThanOrEqual(50)
    expect(lines.find((line) => line.req?.url === '/api/call')).not.toHaveProperty('turnWaitMs')
  })

  it('logs a 501 (a service this mode does not run) at warn without an error, and a 500 as an error', async () => {
    const lines: Array<{ level: number; msg: string; err?: unknown; req?: { url?: string } }> = []
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) })
    const app = express()
    app.use(createHttpLogger(logger))
    app.get('/api/view/list', (_req, res) => void res.status(501).json({ error: 'not_implemented' }))
    app.get('/api/broken', (_req, res) => void res.status(500).json({ error: 'boom' }))
    const server = http.createServer(app)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    close = () => new Promise<void>((resolve) => server.close(() => resolve()))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    await fetch(`${base}/api/view/list`)
    await fetch(`${base}/api/broken`)
    const lineOf = (url: string) => lines.find((line) => line.req?.url === url)!
    expect(lineOf('/api/view/list')).toMatchObject({ level: 40, msg: 'request completed' })
    expect(lineOf('/api/view/list')).not.toHaveProperty('err')
    expect(lineOf('/api/broken')).toMatchObject({ level: 50, msg: 'request errored' })
    expect(lineOf('/api/broken')).toHaveProperty('err')
  })
})
