import http, { type IncomingMessage, type Server } from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { generate } from 'selfsigned'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { parseAllowedTargets, restrictedGuard, type ResolveAll } from '#server/backend/health/checks/target-guard.ts'
import { NotificationSendError, sendNotification, targetGuardOf } from '#server/backend/notifications/senders/index.ts'

/**
 * The senders connect to the address their guard vetted. `rebind.test` is a reserved name no
 * resolver of this machine answers, so a send that resolved it again on connecting would fail;
 * the guard's own resolver answers loopback once and another loopback address (where nothing
 * listens) every later time, as a rebinding DNS server would.
 */

const note = { title: 'Disk full', message: 'web-1 is at 97%' }

let receiver: Server
let port: number
const received: { host?: string; path: string; body: string }[] = []

function rebindingResolver(): { resolve: ResolveAll; asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    resolve: async (host) => {
      asked.push(host)
      return [{ address: asked.length === 1 ? '127.0.0.1' : '127.0.0.9', family: 4 }]
    },
  }
}

async function sendError(promise: Promise<unknown>): Promise<NotificationSendError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(NotificationSendError)
  return error as NotificationSendError
}

let cert: { key: string; cert: string }

beforeAll(async () => {
  const pems = await generate([{ name: 'commonName', value: 'rebind.test' }], { keyType: 'ec', algorithm: 'sha256' })
  cert = { key: pems.private, cert: pems.cert }
  receiver = http.createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      received.push({ host: req.headers.host, path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  port = (receiver.address() as AddressInfo).port
})

afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
})

beforeEach(() => {
  received.length = 0
})

describe('HTTP senders', () => {
  it('connect to the address the guard approved, keeping the host name in Host, and never resolve again', async () => {
    const dns = rebindingResolver()
    const guard = targetGuardOf(restrictedGuard(parseAllowedTargets(`rebind.test:${port}`), dns.resolve))
    const result = await sendNotification(`generic+http://rebind.test:${port}/hook`, note, { guard })
    expect(result.status).toBe(200)
    expect(received).toEqual([{ host: `rebind.test:${port}`, path: '/hook', body: JSON.stringify({ title: note.title, message: note.message }) }])
    expect(dns.asked).toEqual(['rebind.test'])
  })

  it('dial whatever the guard answered, not what the name resolves to elsewhere', async () => {
    // localhost resolves to 127.0.0.1 here, where the receiver listens; the guard says 127.0.0.9, where nothing does.
    const guard = targetGuardOf(restrictedGuard(parseAllowedTargets(`localhost:${port}`), async () => [{ address: '127.0.0.9', family: 4 }]))
    const error = await sendError(sendNotification(`generic+http://localhost:${port}/hook`, note, { guard }))
    expect(error.message).toMatch(/ECONNREFUSED 127\.0\.0\.9/)
    expect(received).toHaveLength(0)
  })

  it('refuses a name resolving to loopback that no admin allowed, before any connection', async () => {
    const dns = rebindingResolver()
    const guard = targetGuardOf(restrictedGuard([], dns.resolve))
    const error = await sendError(sendNotification(`generic+http://rebind.test:${port}/hook`, note, { guard }))
    expect(error.message).toMatch(/is not an allowed target: target 127\.0\.0\.1:\d+ \(rebind\.test\) is an address of this server/)
    expect(received).toHaveLength(0)
  })

  it('present the original host as the TLS server name while dialling the vetted address', async () => {
    const names: string[] = []
    const tlsServer = https.createServer({ ...cert, SNICallback: (name, callback) => (names.push(name), callback(null, undefined)) }, (_req, res) => res.end('ok'))
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve))
    const tlsPort = (tlsServer.address() as AddressInfo).port
    try {
      const dns = rebindingResolver()
      const guard = targetGuardOf(restrictedGuard(parseAllowedTargets(`rebind.test:${tlsPort}`), dns.resolve))
      // The certificate is self-signed, so the client hangs up after the hello: the name it sent is what counts.
      const error = await sendError(sendNotification(`generic+https://rebind.test:${tlsPort}/hook`, note, { guard }))
      expect(error.message).toMatch(/certificate/i)
      expect(names).toEqual(['rebind.test'])
      expect(dns.asked).toEqual(['rebind.test'])
    } finally {
      tlsServer.closeAllConnections()
      await new Promise((resolve) => tlsServer.close(resolve))
    }
  })
})

describe('SMTP sender', () => {
  it('connects to the vetted address, with the host name as the TLS server name', async () => {
    const deliveries: { to: string[]; servername?: string; secure: boolean }[] = []
    const smtp = new SMTPServer({
      secure: true,
      ...cert,
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        stream.resume()
        stream.on('end', () => {
          deliveries.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), servername: session.servername || undefined, secure: session.secure })
          callback()
        })
      },
    })
    smtp.on('error', () => undefined)
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
    const smtpPort = (smtp.server.address() as AddressInfo).port
    try {
      const dns = rebindingResolver()
      const guard = targetGuardOf(restrictedGuard(parseAllowedTargets(`rebind.test:${smtpPort}`), dns.resolve))
      const url = `smtp://rebind.test:${smtpPort}/?fromaddress=lookout@example.com&toaddresses=ops@example.com&encryption=ImplicitTLS&skiptlsverify=yes&auth=None`
      const result = await sendNotification(url, note, { guard })
      expect(result).toMatchObject({ scheme: 'smtp', status: 250 })
      expect(deliveries).toEqual([{ to: ['ops@example.com'], servername: 'rebind.test', secure: true }])
      expect(dns.asked).toEqual(['rebind.test'])
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()))
    }
  })
})
