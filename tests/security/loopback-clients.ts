import http from 'node:http'
import type { AddressInfo } from 'node:net'
import axios, { AxiosError, type AxiosResponse } from 'axios'
import { Configuration, FrontendApi } from '@ory/client'
import type { Db } from '#server/db/client.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { CookieJar, csrfOf } from '#tests/identity/kratos-harness.ts'

/**
 * The whole console process (gateway + embedded identity service) on a real listening socket,
 * and browsers that connect from chosen loopback addresses (127.0.0.2, 127.0.0.3, …): to the
 * server they are different clients, exactly as two machines would be.
 */
export type ListeningApp = { base: string; close(): Promise<void> }

export async function listenApp(db: Db, env: Record<string, string> = {}): Promise<ListeningApp> {
  const { app } = createTestApp(db, { LOG_LEVEL: 'silent', ...env })
  const server = http.createServer(app.listener)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export type LoopbackBrowser = {
  api: FrontendApi
  jar: CookieJar
  /** Plain GET from this browser (its cookies, its address), never throwing on a status. */
  get(url: string, headers?: Record<string, string>): Promise<AxiosResponse>
}

export function browserFrom(app: ListeningApp, localAddress: string, headers: Record<string, string> = {}): LoopbackBrowser {
  const jar = new CookieJar()
  const agent = new http.Agent({ localAddress })
  const instance = axios.create({ httpAgent: agent, headers, maxRedirects: 0 })
  instance.interceptors.request.use((config) => {
    const cookie = jar.header()
    if (cookie) config.headers.set('Cookie', cookie)
    return config
  })
  instance.interceptors.response.use(
    (response) => {
      jar.store(response.headers['set-cookie'])
      return response
    },
    (error: AxiosError) => {
      jar.store(error.response?.headers['set-cookie'] as string[] | undefined)
      return Promise.reject(error)
    },
  )
  const basePath = `${app.base}/api/.ory`
  return {
    api: new FrontendApi(new Configuration({ basePath }), basePath, instance),
    jar,
    get: (url, extra = {}) => instance.get(url, { headers: extra, validateStatus: () => true }),
  }
}

/** The answer of an SDK call, success or not. */
export async function answerOf<T>(promise: Promise<AxiosResponse<T>>): Promise<AxiosResponse> {
  try {
    return await promise
  } catch (error) {
    if (error instanceof AxiosError && error.response) return error.response
    throw error
  }
}

export async function signIn(browser: LoopbackBrowser, identifier: string, password: string): Promise<AxiosResponse> {
  const { data: flow } = await browser.api.createBrowserLoginFlow()
  return answerOf(browser.api.updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'password', identifier, password, csrf_token: csrfOf(flow) } }))
}

/** Starts a recovery flow and asks for a code for `email`; returns the answer to the request. */
export async function requestRecovery(browser: LoopbackBrowser, email: string): Promise<AxiosResponse> {
  const { data: flow } = await browser.api.createBrowserRecoveryFlow()
  return answerOf(browser.api.updateRecoveryFlow({ flow: flow.id, updateRecoveryFlowBody: { method: 'code', email, csrf_token: csrfOf(flow) } }))
}

/** Mails in the outbox to `to` (optionally of one subject). */
export async function mailsTo(db: Db, to: string, subject?: string): Promise<{ subject: string; body: string }[]> {
  const { rows } = await db.query<{ subject: string; body: string }>(
    'SELECT subject, body FROM identity.mail_outbox WHERE "to" = $1 AND ($2::text IS NULL OR subject = $2) ORDER BY created_at, id',
    [to, subject ?? null],
  )
  return rows
}

/** Waits until `probe` holds (mails are written after the answer), failing after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (accept(value)) return value
    if (Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
