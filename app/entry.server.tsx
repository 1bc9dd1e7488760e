import { PassThrough } from 'node:stream'
import { createReadableStreamFromReadable, type AppLoadContext, type EntryContext, type HandleErrorFunction } from '@remix-run/node'
import { RemixServer } from '@remix-run/react'
import { isbot } from 'isbot'
import { renderToPipeableStream } from 'react-dom/server'
import { installClassConflictCheck } from './lib/class-conflicts.server.ts'
import { consoleLog } from './lib/log.server.ts'
import { NonceProvider } from './lib/nonce-provider.ts'

installClassConflictCheck(process.env.LOOKOUT_CLASS_CONFLICTS, (message) => consoleLog.warn(message))

/**
 * LOOKOUT_RENDER_TIMING=1 adds `Server-Timing: render;dur=<ms>, render-cpu;dur=<ms>` to every
 * document: React's wall time from the start of the render to the document's shell being ready,
 * without the loaders, and the process CPU time spent meanwhile (steadier than wall time on a
 * loaded machine). bench/render.ts reads them. Off by default, so bench/pages' reading of the
 * header is unchanged.
 */
const shouldTimeRenders = process.env.LOOKOUT_RENDER_TIMING === '1'

/** How long a streamed response may wait on pending data before React gives up on it. */
export const streamTimeout = 10_000

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
): Promise<Response> {
  // Crawlers and no-JS readers get the whole document at once; browsers get the shell first.
  const waitForAll = isbot(request.headers.get('user-agent') ?? '') || remixContext.isSpaMode
  const nonce = loadContext?.cspNonce ?? ''

  return new Promise((resolve, reject) => {
    let didError = false
    const renderStarted = shouldTimeRenders ? performance.now() : 0
    const cpuStarted = shouldTimeRenders ? process.cpuUsage() : undefined
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        [waitForAll ? 'onAllReady' : 'onShellReady']() {
          const body = new PassThrough()
          responseHeaders.set('Content-Type', 'text/html; charset=utf-8')
          if (shouldTimeRenders) {
            const cpu = process.cpuUsage(cpuStarted)
            responseHeaders.append('Server-Timing', `render;dur=${(performance.now() - renderStarted).toFixed(2)}, render-cpu;dur=${((cpu.user + cpu.system) / 1000).toFixed(2)}`)
          }
          resolve(
            new Response(createReadableStreamFromReadable(body), {
              headers: responseHeaders,
              status: didError ? 500 : responseStatusCode,
            }),
          )
          pipe(body)
        },
        onShellError(error: unknown) {
          reject(error)
        },
        onError(error: unknown) {
          didError = true
          consoleLog.error({ err: error }, 'render failed')
        },
      },
    )
    setTimeout(abort, streamTimeout + 1000)
  })
}

export const handleError: HandleErrorFunction = (error, { request }) => {
  // Aborted requests (the browser navigated away) are not errors worth a log line.
  if (request.signal.aborted) return
  consoleLog.error({ err: error, url: new URL(request.url).pathname }, 'unhandled loader, action or render error')
}
