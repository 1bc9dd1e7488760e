import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import axios, { AxiosError, type AxiosResponse } from 'axios'
import express from 'express'
import { Configuration, FrontendApi, type UiNode } from '@ory/client'
import { pino } from 'pino'
import { generate } from 'otplib'
import { createKratosRouter, type KratosRouterOptions } from '#server/backend/identity/kratos/kratos-router.ts'
import { createMailer } from '#server/backend/identity/mail/mailer.ts'
import type { Db } from '#server/db/client.ts'

export const UI_BASE = 'http://ui.test:3000'

/** Cookies as a browser would keep them: name → value, updated from every Set-Cookie. */
export class CookieJar {
  readonly cookies = new Map<string, string>()
  store(setCookie: string[] | string | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair = ''] = line.split(';')
      const eq = pair.indexOf('=')
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      if (!value || /max-age=0/i.test(line)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ')
  }
  get(name: string): string | undefined {
    return this.cookies.get(name)
  }
}

export type Harness = { base: string; db: Db; close(): Promise<void>; browser(): Browser }
export type Browser = { api: FrontendApi; jar: CookieJar }

export async function startKratos(db: Db, overrides: Partial<KratosRouterOptions> = {}): Promise<Harness> {
  const logger = pino({ level: 'silent' })
  const app = express()
  let base = ''
  app.set('trust proxy', false)
  app.use(
    createKratosRouter({
      db,
      publicBaseUrl: () => base,
      uiBaseUrl: () => UI_BASE,
      mailer: createMailer({ db, from: 'lookout@example.com', logger }),
      registration: 'open',
      defaultRole: 'viewer',
      logger,
      ...overrides,
    }),
  )
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    db,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    browser() {
      const jar = new CookieJar()
      const instance = axios.create()
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
      return { api: new FrontendApi(new Configuration({ basePath: base }), base, instance), jar }
    },
  }
}

/** The rejected response of an SDK call (fails the test when the call succeeded). */
export async function failure<T>(promise: Promise<AxiosResponse<T>>): Promise<AxiosResponse> {
  try {
    const ok = await promise
    throw new Error(`expected the call to fail, got HTTP ${ok.status}`)
  } catch (error) {
    if (error instanceof AxiosError && error.response) return error.response
    throw error
  }
}

export function csrfOf(flow: { ui: { nodes: UiNode[] } }): string {
  const node = flow.ui.nodes.find((n) => 'name' in n.attributes && n.attributes.name === 'csrf_token')
  const value = node && 'value' in node.attributes ? node.attributes.value : undefined
  if (typeof value !== 'string' || !value) throw new Error('flow has no csrf_token node')
  return value
}

export function nodeNamed(flow: { ui: { nodes: UiNode[] } }, name: string): UiNode | undefined {
  return flow.ui.nodes.find((n) => ('name' in n.attributes && n.attributes.name === name) || ('id' in n.attributes && n.attributes.id === name))
}

export function messageIds(flow: { ui: { nodes: UiNode[]; messages?: { id: number }[] } }): number[] {
  return [...(flow.ui.messages ?? []), ...flow.ui.nodes.flatMap((n) => n.messages)].map((m) => m.id)
}

/**
 * The newest code mailed to an address (the outbox stands in for an inbox), optionally of one
 * subject. Code mails are written after the answer (so known and unknown addresses answer
 * alike): this waits for the mail as a person would.
 */
export async function lastMailedCode(db: Db, to: string, options: { subject?: string; timeoutMs?: number } = {}): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000)
  for (;;) {
    const { rows } = await db.query<{ body: string }>(
      'SELECT body FROM identity.mail_outbox WHERE "to" = $1 AND ($2::text IS NULL OR subject = $2) ORDER BY created_at DESC, id DESC LIMIT 1',
      [to, options.subject ?? null],
    )
    const code = /\b(\d{6})\b/.exec(rows[0]?.body ?? '')?.[1]
    if (code) return code
    if (Date.now() > deadline) throw new Error(`no code mailed to ${to}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

export async function totpCode(secret: string, offsetSteps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(Date.now() / 1000) + offsetSteps * 30 })
}

/** Signs in with a password through the SDK; returns the HTTP response (200 or 422). */
export async function passwordLogin(browser: Browser, identifier: string, password: string, returnTo?: string): Promise<AxiosResponse> {
  const { data: flow } = await browser.api.createBrowserLoginFlow({ returnTo })
  try {
    return await browser.api.updateLoginFlow({
      flow: flow.id,
      updateLoginFlowBody: { method: 'password', identifier, password, csrf_token: csrfOf(flow) },
    })
  } catch (error) {
    if (error instanceof AxiosError && error.response) return error.response
    throw error
  }
}
