import http, { type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generate } from 'selfsigned'
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { describeTarget, NotificationSendError, sendNotification } from '#server/backend/notifications/senders/index.ts'

type Received = { method: string; path: string; headers: IncomingMessage['headers']; body: string }
type Reply = { status?: number; body?: unknown; headers?: Record<string, string> }

let receiver: Server
let base: string
let port: number
const received: Received[] = []
// What the receiver answers; tests replace it, beforeEach puts back a plain 200.
let reply: (request: Received) => Reply = () => ({ status: 200, body: { ok: true } })

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const request: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      received.push(request)
      const { status = 200, body = '', headers = {} } = reply(request)
      const text = typeof body === 'string' ? body : JSON.stringify(body)
      res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json', ...headers })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  port = (receiver.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})

afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise((resolve) => receiver.close(resolve))
})

beforeEach(() => {
  received.length = 0
  reply = () => ({ status: 200, body: { ok: true } })
})

const note = { title: 'Disk full', message: 'web-1 is at 97%' }
const json = (request: Received | undefined): Record<string, unknown> => JSON.parse(request!.body) as Record<string, unknown>
const form = (request: Received | undefined): Record<string, string> => Object.fromEntries(new URLSearchParams(request!.body))

async function sendError(promise: Promise<unknown>): Promise<NotificationSendError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  )
  expect(error).toBeInstanceOf(NotificationSendError)
  return error as NotificationSendError
}

describe('generic webhooks', () => {
  it('posts JSON to generic+http, consuming the Shoutrrr options and keeping the rest on the target', async () => {
    const result = await sendNotification(`generic+http://127.0.0.1:${port}/hook?titlekey=subject&messagekey=text&token=abc&@X-Lookout=yes&$env=prod`, { ...note, properties: { team: 'ops' } })
    expect(result).toMatchObject({ scheme: 'generic+http', status: 200 })
    expect(result.target).toBe(`generic+http://127.0.0.1:${port}/hook?titlekey=subject&messagekey=text&token=***&@X-Lookout=yes&$env=prod`)
    const [request] = received
    expect(request).toMatchObject({ method: 'POST', path: '/hook?token=abc' })
    expect(request!.headers['content-type']).toBe('application/json')
    expect(request!.headers['x-lookout']).toBe('yes')
    expect(json(request)).toEqual({ team: 'ops', env: 'prod', subject: 'Disk full', text: 'web-1 is at 97%' })
  })

  it('sends text with the method, content type and basic auth of the URL, to a baseUrls override', async () => {
    await sendNotification('generic://hooks.example.com/alerts?template=text&method=put&contenttype=text/plain&disabletls=yes', note, { baseUrls: { generic: base } })
    await sendNotification(`generic+http://user:s3cr3t@127.0.0.1:${port}/auth`, note)
    expect(received[0]).toMatchObject({ method: 'PUT', path: '/alerts', body: 'Disk full\n\nweb-1 is at 97%' })
    expect(received[0]!.headers['content-type']).toBe('text/plain')
    expect(received[1]!.headers.authorization).toBe(`Basic ${Buffer.from('user:s3cr3t').toString('base64')}`)
    expect(describeTarget(`generic+http://user:s3cr3t@127.0.0.1:${port}/auth`)).toBe(`generic+http://user:***@127.0.0.1:${port}/auth`)
  })
})

describe('slack', () => {
  it('posts with a bot token to chat.postMessage', async () => {
    const result = await sendNotification('slack://xoxb:123-456@C0OPS?botname=lookout', note, { baseUrls: { slack: base } })
    const [request] = received
    expect(request).toMatchObject({ method: 'POST', path: '/api/chat.postMessage' })
    expect(request!.headers.authorization).toBe('Bearer xoxb-123-456')
    expect(json(request)).toEqual({ channel: 'C0OPS', text: '*Disk full*\nweb-1 is at 97%', username: 'lookout' })
    expect(result.target).toBe('slack://xoxb:***@C0OPS?botname=lookout')
  })

  it('fails, not retryable, when the Web API answers ok: false', async () => {
    reply = () => ({ status: 200, body: { ok: false, error: 'channel_not_found' } })
    const error = await sendError(sendNotification('slack://xoxb:123-456@nowhere', note, { baseUrls: { slack: base } }))
    expect(error.message).toMatch(/channel_not_found/)
    expect(error.retryable).toBe(false)
  })

  it('posts webhook tokens to hooks.slack.com/services, in all three spellings', async () => {
    for (const url of ['slack://hook:T000/B000/XXXXSECRET@webhook', 'slack://hook:T000-B000-XXXXSECRET@webhook', 'slack://T000/B000/XXXXSECRET']) {
      await sendNotification(url, note, { baseUrls: { slack: base } })
    }
    expect(received.map((request) => request.path)).toEqual(Array(3).fill('/services/T000/B000/XXXXSECRET'))
    expect(json(received[0])).toEqual({ text: '*Disk full*\nweb-1 is at 97%' })
    expect(describeTarget('slack://hook:T000/B000/XXXXSECRET@webhook')).toBe('slack://hook:***@webhook')
    expect(describeTarget('slack://T000/B000/XXXXSECRET')).toBe('slack://T000/B000/***')
  })
})

describe('teams', () => {
  it('builds the webhookb2 URL from group@tenant/altId/groupOwner/extraId and posts a MessageCard', async () => {
    const url = 'teams://group-id@tenant-id/alt-SECRET/owner-SECRET/extra-SECRET?host=example.webhook.office.com&color=ff0000'
    await sendNotification(url, note, { baseUrls: { teams: base } })
    const [request] = received
    expect(request!.path).toBe('/webhookb2/group-id@tenant-id/IncomingWebhook/alt-SECRET/owner-SECRET/extra-SECRET')
    expect(json(request)).toMatchObject({ '@type': 'MessageCard', title: 'Disk full', text: 'web-1 is at 97%', themeColor: 'ff0000' })
    expect(describeTarget(url)).toBe('teams://group-id@tenant-id/***/***/***?host=example.webhook.office.com&color=ff0000')
  })

  it('posts an Adaptive Card to a Workflows URL given as teams+http', async () => {
    const url = `teams+http://127.0.0.1:${port}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SIGSECRET`
    await sendNotification(url, note)
    const [request] = received
    expect(request!.path).toBe('/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SIGSECRET')
    const card = (json(request).attachments as { contentType: string; content: { body: { text: string }[] } }[])[0]!
    expect(card.contentType).toBe('application/vnd.microsoft.card.adaptive')
    expect(card.content.body.map((block) => block.text)).toEqual(['Disk full', 'web-1 is at 97%'])
    expect(describeTarget(url)).not.toContain('SIGSECRET')
  })
})

describe('chat webhooks', () => {
  it('discord: token@webhookid → /api/webhooks/{id}/{token} with an embed', async () => {
    const result = await sendNotification('discord://tokenSECRET@123456789?username=lookout', note, { baseUrls: { discord: base } })
    expect(received[0]!.path).toBe('/api/webhooks/123456789/tokenSECRET')
    expect(json(received[0])).toEqual({ embeds: [{ title: 'Disk full', description: 'web-1 is at 97%' }], username: 'lookout' })
    expect(result.target).toBe('discord://***@123456789?username=lookout')
  })

  it('mattermost: user@host/token/channel → /hooks/{token}', async () => {
    await sendNotification(`mattermost://lookout@127.0.0.1:${port}/tokenSECRET/town-square?disabletls=yes`, note)
    expect(received[0]).toMatchObject({ method: 'POST', path: '/hooks/tokenSECRET' })
    expect(json(received[0])).toEqual({ text: '#### Disk full\nweb-1 is at 97%', username: 'lookout', channel: 'town-square' })
    expect(describeTarget(`mattermost://lookout@127.0.0.1:${port}/tokenSECRET/town-square`)).toBe(`mattermost://lookout@127.0.0.1:${port}/***/town-square`)
  })

  it('googlechat: keeps the space path and key/token query', async () => {
    const url = 'googlechat://chat.googleapis.com/v1/spaces/AAAA/messages?key=KEYSECRET&token=TOKENSECRET'
    await sendNotification(url, note, { baseUrls: { googlechat: base } })
    expect(received[0]!.path).toBe('/v1/spaces/AAAA/messages?key=KEYSECRET&token=TOKENSECRET')
    expect(json(received[0])).toEqual({ text: '*Disk full*\nweb-1 is at 97%' })
    expect(describeTarget(url)).toBe('googlechat://chat.googleapis.com/v1/spaces/AAAA/messages?key=***&token=***')
  })

  it('rocketchat: user@host/tokenA/tokenB/#channel → /hooks/tokenA/tokenB', async () => {
    await sendNotification('rocketchat://lookout@chat.example.com/tokenA/tokenBSECRET/#ops', note, { baseUrls: { rocketchat: base } })
    expect(received[0]!.path).toBe('/hooks/tokenA/tokenBSECRET')
    expect(json(received[0])).toEqual({ text: '*Disk full*\nweb-1 is at 97%', username: 'lookout', channel: '#ops' })
  })

  it('ifttt: one trigger per event, message and title in the values the URL names', async () => {
    await sendNotification('ifttt://hookSECRET/?events=disk,pager&value1=web-1&titlevalue=3', note, { baseUrls: { ifttt: base } })
    expect(received.map((request) => request.path)).toEqual(['/trigger/disk/with/key/hookSECRET', '/trigger/pager/with/key/hookSECRET'])
    expect(json(received[1])).toEqual({ value1: 'web-1', value2: 'web-1 is at 97%', value3: 'Disk full' })
    expect(describeTarget('ifttt://hookSECRET/?events=disk')).toBe('ifttt://***/?events=disk')
  })
})

describe('push and API services', () => {
  it('telegram: sendMessage once per chat', async () => {
    const result = await sendNotification('telegram://123456:ABCSECRET@telegram?chats=@alerts,42&preview=no', note, { baseUrls: { telegram: base } })
    expect(received.map((request) => request.path)).toEqual(['/bot123456:ABCSECRET/sendMessage', '/bot123456:ABCSECRET/sendMessage'])
    expect(received.map((request) => json(request).chat_id)).toEqual(['@alerts', '42'])
    expect(json(received[0])).toMatchObject({ text: 'Disk full\n\nweb-1 is at 97%', disable_web_page_preview: true, disable_notification: false })
    expect(result.target).toBe('telegram://123456:***@telegram?chats=@alerts,42&preview=no')
  })

  it('ntfy: POST host/topic with Title, Priority and Tags headers and basic auth', async () => {
    await sendNotification(`ntfy://bob:pw-SECRET@127.0.0.1:${port}/alerts?scheme=http&priority=high&tags=warning,skull`, { title: 'Dïsk full', message: 'web-1' })
    const [request] = received
    expect(request).toMatchObject({ method: 'POST', path: '/alerts', body: 'web-1' })
    expect(request!.headers).toMatchObject({ priority: 'high', tags: 'warning,skull', authorization: `Basic ${Buffer.from('bob:pw-SECRET').toString('base64')}` })
    expect(request!.headers.title).toBe(`=?UTF-8?B?${Buffer.from('Dïsk full').toString('base64')}?=`)
  })

  it('pushover: form post with token, user and devices', async () => {
    await sendNotification('pushover://shoutrrr:apptokenSECRET@userkeySECRET/?devices=phone,tablet&priority=1', note, { baseUrls: { pushover: base } })
    expect(received[0]).toMatchObject({ method: 'POST', path: '/1/messages.json' })
    expect(received[0]!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/)
    expect(form(received[0])).toEqual({ token: 'apptokenSECRET', user: 'userkeySECRET', message: 'web-1 is at 97%', title: 'Disk full', device: 'phone,tablet', priority: '1' })
    expect(describeTarget('pushover://shoutrrr:apptokenSECRET@userkeySECRET/?devices=phone')).toBe('pushover://shoutrrr:***@***/?devices=phone')
  })

  it('pushbullet: one note per target with the Access-Token header', async () => {
    await sendNotification('pushbullet://tokenSECRET/device1/%23ops/ops@example.com', note, { baseUrls: { pushbullet: base } })
    expect(received.every((request) => request.path === '/v2/pushes' && request.headers['access-token'] === 'tokenSECRET')).toBe(true)
    expect(received.map((request) => json(request))).toEqual([
      { type: 'note', title: 'Disk full', body: 'web-1 is at 97%', device_iden: 'device1' },
      { type: 'note', title: 'Disk full', body: 'web-1 is at 97%', channel_tag: 'ops' },
      { type: 'note', title: 'Disk full', body: 'web-1 is at 97%', email: 'ops@example.com' },
    ])
  })

  it('opsgenie: /v2/alerts with a GenieKey', async () => {
    reply = () => ({ status: 202, body: { result: 'Request will be processed', requestId: 'r1' } })
    const result = await sendNotification('opsgenie://api.eu.opsgenie.com/apikeySECRET?tags=disk,web&priority=P2&responders=team:ops', note, { baseUrls: { opsgenie: base } })
    expect(result.status).toBe(202)
    expect(received[0]).toMatchObject({ method: 'POST', path: '/v2/alerts' })
    expect(received[0]!.headers.authorization).toBe('GenieKey apikeySECRET')
    expect(json(received[0])).toEqual({ message: 'Disk full', description: 'web-1 is at 97%', priority: 'P2', tags: ['disk', 'web'], responders: [{ type: 'team', name: 'ops' }] })
    expect(describeTarget('opsgenie://api.eu.opsgenie.com/apikeySECRET')).toBe('opsgenie://api.eu.opsgenie.com/***')
  })

  it('zulip: form-encoded stream message with basic auth', async () => {
    await sendNotification('zulip://bot%40example.com:botkeySECRET@zulip.example.com/?stream=ops&topic=disks', note, { baseUrls: { zulip: base } })
    expect(received[0]).toMatchObject({ method: 'POST', path: '/api/v1/messages' })
    expect(received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('bot@example.com:botkeySECRET').toString('base64')}`)
    expect(form(received[0])).toEqual({ type: 'stream', to: 'ops', topic: 'disks', content: '**Disk full**\nweb-1 is at 97%' })
  })

  it('matrix: logs in, resolves the alias, sends to each room and logs out', async () => {
    reply = (request) => {
      if (request.path === '/_matrix/client/v3/login') return { body: { access_token: 'syt_ACCESSSECRET', user_id: '@lookout:example.org' } }
      if (request.path.startsWith('/_matrix/client/v3/directory/room/')) return { body: { room_id: '!resolved:example.org', servers: ['example.org'] } }
      if (request.path.includes('/send/m.room.message/')) return { body: { event_id: '$e1' } }
      return { body: {} }
    }
    await sendNotification(`matrix://lookout:pwSECRET@127.0.0.1:${port}/?rooms=!direct:example.org,#ops:example.org&disableTLS=yes`, note)
    const [login, directory, first, second, logout] = received
    expect(login).toMatchObject({ method: 'POST', path: '/_matrix/client/v3/login' })
    expect(json(login)).toMatchObject({ type: 'm.login.password', identifier: { type: 'm.id.user', user: 'lookout' }, password: 'pwSECRET' })
    expect(directory).toMatchObject({ method: 'GET', path: '/_matrix/client/v3/directory/room/%23ops%3Aexample.org' })
    expect(first!.path).toMatch(/^\/_matrix\/client\/v3\/rooms\/!direct%3Aexample\.org\/send\/m\.room\.message\/[\w-]+$/)
    expect(second!.path).toMatch(/^\/_matrix\/client\/v3\/rooms\/!resolved%3Aexample\.org\/send\/m\.room\.message\/[\w-]+$/)
    for (const send of [first, second]) {
      expect(send).toMatchObject({ method: 'PUT' })
      expect(send!.headers.authorization).toBe('Bearer syt_ACCESSSECRET')
      expect(json(send)).toEqual({ msgtype: 'm.text', body: 'Disk full\nweb-1 is at 97%' })
    }
    expect(logout).toMatchObject({ method: 'POST', path: '/_matrix/client/v3/logout' })
    expect(describeTarget('matrix://lookout:pwSECRET@matrix.example.org/?rooms=!a:b')).toBe('matrix://lookout:***@matrix.example.org/?rooms=!a:b')
  })
})

describe('smtp', () => {
  type Delivery = { from?: string; to: string[]; raw: string; secure: boolean; user?: string }
  const deliveries: Delivery[] = []
  let cert: { key: string; cert: string }

  beforeAll(async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256' })
    cert = { key: pems.private, cert: pems.cert }
  })

  async function startSmtp(options: SMTPServerOptions): Promise<{ port: number; close: () => Promise<void> }> {
    const server = new SMTPServer({
      authMethods: ['PLAIN', 'LOGIN'],
      logger: false,
      ...options,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 'mail-SECRET') callback(null, { user: auth.username })
        else callback(new Error('Invalid username or password'))
      },
      onData(stream, session: SMTPServerSession, callback) {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          const from = session.envelope.mailFrom
          deliveries.push({ from: from ? from.address : undefined, to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString('utf8'), secure: session.secure, user: session.user as string | undefined })
          callback()
        })
      },
    })
    // A client that refuses the certificate hangs up mid-handshake: the server reports it, the test expects it.
    server.on('error', () => undefined)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.server.address() as AddressInfo
    return { port: address.port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
  }

  beforeEach(() => {
    deliveries.length = 0
  })

  it('delivers with auth Plain and no encryption: from, to, subject, body and an attachment', async () => {
    const smtp = await startSmtp({ allowInsecureAuth: true, disabledCommands: ['STARTTLS'] })
    try {
      const url = `smtp://mailer:mail-SECRET@127.0.0.1:${smtp.port}/?fromaddress=lookout@example.com&fromname=Lookout&toaddresses=ops@example.com,dev@example.com&encryption=None&auth=Plain`
      const result = await sendNotification(url, { ...note, attachments: [{ filename: 'report.txt', content: 'disk report', contentType: 'text/plain' }] })
      expect(result).toMatchObject({ scheme: 'smtp', status: 250 })
      expect(result.target).not.toContain('mail-SECRET')
      const [mail] = deliveries
      expect(mail).toMatchObject({ from: 'lookout@example.com', to: ['ops@example.com', 'dev@example.com'], secure: false, user: 'mailer' })
      expect(mail!.raw).toMatch(/^From: Lookout <lookout@example\.com>$/m)
      expect(mail!.raw).toMatch(/^To: ops@example\.com, dev@example\.com$/m)
      expect(mail!.raw).toMatch(/^Subject: Disk full$/m)
      expect(mail!.raw).toContain('web-1 is at 97%')
      expect(mail!.raw).toMatch(/filename=report\.txt/)
      expect(mail!.raw).toContain(Buffer.from('disk report').toString('base64'))
    } finally {
      await smtp.close()
    }
  })

  it('fails a wrong password, not retryable and without the password in the message', async () => {
    const smtp = await startSmtp({ allowInsecureAuth: true, disabledCommands: ['STARTTLS'] })
    try {
      const error = await sendError(sendNotification(`smtp://mailer:wrong-SECRET@127.0.0.1:${smtp.port}/?fromaddress=a@example.com&toaddresses=b@example.com&encryption=None&auth=Plain`, note))
      expect(error.status).toBe(535)
      expect(error.retryable).toBe(false)
      expect(error.message).not.toContain('wrong-SECRET')
      expect(deliveries).toHaveLength(0)
    } finally {
      await smtp.close()
    }
  })

  it('speaks ImplicitTLS, and STARTTLS for ExplicitTLS, to a self-signed server with skiptlsverify', async () => {
    const implicit = await startSmtp({ secure: true, ...cert })
    const explicit = await startSmtp({ ...cert })
    try {
      await sendNotification(`smtp://mailer:mail-SECRET@127.0.0.1:${implicit.port}/?fromaddress=a@example.com&toaddresses=b@example.com&encryption=ImplicitTLS&skiptlsverify=yes`, note)
      await sendNotification(`smtp://mailer:mail-SECRET@127.0.0.1:${explicit.port}/?fromaddress=a@example.com&toaddresses=c@example.com&encryption=ExplicitTLS&insecure=yes&usehtml=yes`, { title: 'HTML', message: '<b>bold</b>' })
      expect(deliveries.map(({ to, secure, user }) => ({ to, secure, user }))).toEqual([
        { to: ['b@example.com'], secure: true, user: 'mailer' },
        { to: ['c@example.com'], secure: true, user: 'mailer' },
      ])
      expect(deliveries[1]!.raw).toMatch(/Content-Type: text\/html/)
      // Without skiptlsverify the self-signed certificate is refused.
      const error = await sendError(sendNotification(`smtp://127.0.0.1:${implicit.port}/?fromaddress=a@example.com&toaddresses=b@example.com&encryption=ImplicitTLS&auth=None`, note))
      expect(error.message).toMatch(/certificate/i)
      expect(deliveries).toHaveLength(2)
    } finally {
      await implicit.close()
      await explicit.close()
    }
  })
})

describe('errors', () => {
  it('a 500 is retryable, carries the status and a trimmed body, and never the token', async () => {
    reply = (request) => ({ status: 500, body: `upstream broke while handling ${request.path} ${'x'.repeat(2_000)}` })
    const error = await sendError(sendNotification('telegram://123456:ABCSECRET@telegram?chats=42', note, { baseUrls: { telegram: base } }))
    expect(error).toMatchObject({ scheme: 'telegram', status: 500, retryable: true })
    expect(error.message).toMatch(/^telegram: POST http:\/\/127\.0\.0\.1:\d+\/bot\*\*\*\/sendMessage answered 500: upstream broke while handling \/bot\*\*\*\/sendMessage x+…$/)
    expect(error.message.length).toBeLessThan(700)
    expect(error.message).not.toContain('ABCSECRET')
  })

  it('a 429 is retryable and a 400 is not', async () => {
    reply = () => ({ status: 429, body: { message: 'slow down' } })
    expect((await sendError(sendNotification('discord://tokenSECRET@1', note, { baseUrls: { discord: base } }))).retryable).toBe(true)
    reply = () => ({ status: 400, body: { message: 'bad request' } })
    const error = await sendError(sendNotification('discord://tokenSECRET@1', note, { baseUrls: { discord: base } }))
    expect(error).toMatchObject({ status: 400, retryable: false })
    expect(error.message).not.toContain('tokenSECRET')
  })

  it('an unknown scheme names itself and the supported ones', async () => {
    const error = await sendError(sendNotification('gotify://host/tokenSECRET', note))
    expect(error.message).toMatch(/unsupported notification URL scheme "gotify": supported are smtp, generic, slack, teams/)
    expect(error.retryable).toBe(false)
    expect(describeTarget('gotify://host/tokenSECRET')).toBe('gotify://host/***')
  })

  it('times out a service that never answers, as retryable', async () => {
    const silent = http.createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const error = await sendError(sendNotification(`generic+http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`, note, { timeoutMs: 200 }))
      expect(error.message).toBe('generic: timed out after 200 ms')
      expect(error.retryable).toBe(true)
    } finally {
      silent.closeAllConnections()
      await new Promise((resolve) => silent.close(resolve))
    }
  })

  it('a refused connection is retryable; an aborted send stops; the guard is asked first and can refuse', async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    expect((await sendError(sendNotification(`generic+http://127.0.0.1:${closedPort}/hook`, note))).retryable).toBe(true)

    const controller = new AbortController()
    controller.abort()
    expect((await sendError(sendNotification(`generic+http://127.0.0.1:${port}/hook`, note, { signal: controller.signal }))).message).toBe('generic: the send was aborted')

    const asked: string[] = []
    const guard = async (url: URL) => {
      asked.push(url.host)
      if (url.hostname === '127.0.0.1') throw new Error('loopback is refused')
    }
    const error = await sendError(sendNotification('slack://xoxb:123-456@ops', note, { baseUrls: { slack: base }, guard }))
    expect(error.message).toMatch(/is not an allowed target: loopback is refused/)
    expect(error.retryable).toBe(false)
    expect(asked).toEqual([`127.0.0.1:${port}`])
    expect(received).toHaveLength(0)
  })

  it('refuses attachments on schemes other than smtp, and a malformed URL of a known scheme', async () => {
    expect((await sendError(sendNotification('discord://t@1', { ...note, attachments: [{ filename: 'a', content: 'b' }] }))).message).toMatch(/attachments are sent by smtp only/)
    expect((await sendError(sendNotification('telegram://token@telegram', note))).message).toMatch(/chats=/)
  })
})
