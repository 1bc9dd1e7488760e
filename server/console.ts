import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import type { AppLoadContext, ServerBuild } from '@remix-run/node'
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express'
import pLimit from 'p-limit'

export const BUILD_DIR = path.resolve('build')

export type ConsoleHandler = { handler: express.Router; close(): Promise<void> }

/**
 * The console: Remix pages plus their assets. In development Vite compiles on demand (with
 * HMR); in production the prebuilt `build/` is served, hashed assets cached for a year.
 */
export async function createConsoleHandler(options: {
  isProduction: boolean
  getLoadContext: (req: Request, res: Response) => AppLoadContext
  /** Page requests rendered at once by this process (LOOKOUT_PAGE_CONCURRENCY); 0 = no limit. */
  pageConcurrency?: number
}): Promise<ConsoleHandler> {
  const router = express.Router()
  if (!options.isProduction) {
    const vite = await import('vite')
    const devServer = await vite.createServer({ server: { middlewareMode: true } })
    router.use(devServer.middlewares)
    router.all('*', (req, res, next) => {
      const handler = createRequestHandler({
        build: () => devServer.ssrLoadModule('virtual:remix/server-build') as Promise<ServerBuild>,
        getLoadContext: options.getLoadContext,
        mode: 'development',
      })
      return handler(req, res, next)
    })
    return { handler: router, close: () => devServer.close() }
  }

  const serverBuild = path.join(BUILD_DIR, 'server', 'index.js')
  const build = (await import(pathToFileURL(serverBuild).href)) as ServerBuild
  router.use('/assets', express.static(path.join(BUILD_DIR, 'client', 'assets'), { immutable: true, maxAge: '1y' }))
  // Files of public/ (favicon, robots.txt) have an extension; a page's path has none, and
  // asking the disk about each page request cost a stat() per page.
  const publicFiles = express.static(path.join(BUILD_DIR, 'client'), { maxAge: '1h', index: false })
  router.use((req, res, next) => (path.extname(req.path) ? publicFiles(req, res, next) : next()))
  const pages = createRequestHandler({ build, getLoadContext: options.getLoadContext, mode: 'production' })
  router.all('*', options.pageConcurrency ? inTurn(pages, options.pageConcurrency) : pages)
  return { handler: router, close: async () => undefined }
}

/**
 * Lets at most `concurrency` page requests (documents, data requests, actions) run at once; the
 * rest wait their turn, first come first served. A page's loaders call this process's own API
 * (/api, which is not limited) over loopback: with every waiting page started at once, those
 * calls queued behind new pages and a few pages took seconds while most took a fraction of that.
 * A request whose client has gone while it waited is not rendered. The wait is logged with the
 * request (`turnWaitMs`).
 */
export function inTurn(handler: RequestHandler, concurrency: number): RequestHandler {
  const limit = pLimit(concurrency)
  return (req: Request, res: Response, next: NextFunction) => {
    const arrived = performance.now()
    void limit(async () => {
      if (res.destroyed || req.socket.destroyed) return
      // The request log line says how long the page waited (a saturated console shows it first).
      res.locals.turnWaitMs = Math.round(performance.now() - arrived)
      await handler(req, res, next)
    })
  }
}
