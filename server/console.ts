import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createRequestHandler } from '@remix-run/express'
import type { AppLoadContext, ServerBuild } from '@remix-run/node'
import express, { type Request, type Response } from 'express'

export const BUILD_DIR = path.resolve('build')

export type ConsoleHandler = { handler: express.Router; close(): Promise<void> }

/**
 * The console: Remix pages plus their assets. In development Vite compiles on demand (with
 * HMR); in production the prebuilt `build/` is served, hashed assets cached for a year.
 */
export async function createConsoleHandler(options: {
  isProduction: boolean
  getLoadContext: (req: Request, res: Response) => AppLoadContext
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
  router.all('*', createRequestHandler({ build, getLoadContext: options.getLoadContext, mode: 'production' }))
  return { handler: router, close: async () => undefined }
}
