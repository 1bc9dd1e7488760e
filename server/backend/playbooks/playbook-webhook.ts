import { createHmac, createPublicKey, timingSafeEqual, verify, type JsonWebKey } from 'node:crypto'
import type { Request } from 'express'
import { parseDurationMs } from '#contract/canary/duration.ts'

/**
 * `on.webhook` authentication (resource-specs §2.3): basic, github (X-Hub-Signature-256), svix
 * (svix-id / svix-timestamp / svix-signature) and jwt (a JWKS URL). Secrets are plain strings
 * or `{value}`; signatures are checked over the raw body in constant time.
 */

type Secret = string | { value?: string } | undefined
export type WebhookAuthentication = {
  basic?: { username?: Secret; password?: Secret }
  github?: { token?: Secret }
  svix?: { secret?: Secret; verifyTimestamp?: string }
  jwt?: { jwksUri?: string }
}

export type WebhookVerdict = { ok: true } | { ok: false; error: string }

const secretOf = (value: Secret): string => (typeof value === 'string' ? value : (value?.value ?? ''))

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

function header(req: Request, name: string): string {
  const value = req.headers[name]
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '')
}

function checkBasic(auth: NonNullable<WebhookAuthentication['basic']>, req: Request): WebhookVerdict {
  const match = /^Basic\s+(.+)$/i.exec(header(req, 'authorization'))
  if (!match) return { ok: false, error: 'basic authentication required' }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  const username = colon === -1 ? decoded : decoded.slice(0, colon)
  const password = colon === -1 ? '' : decoded.slice(colon + 1)
  // Both compared, whatever the first says, so the time taken does not tell which was wrong.
  const userOk = sameText(username, secretOf(auth.username))
  const passwordOk = sameText(password, secretOf(auth.password))
  return userOk && passwordOk ? { ok: true } : { ok: false, error: 'invalid credentials' }
}

function checkGithub(auth: NonNullable<WebhookAuthentication['github']>, req: Request, raw: Buffer): WebhookVerdict {
  const signature = header(req, 'x-hub-signature-256')
  if (!signature) return { ok: false, error: 'missing X-Hub-Signature-256 header' }
  const expected = `sha256=${createHmac('sha256', secretOf(auth.token)).update(raw).digest('hex')}`
  return sameText(signature, expected) ? { ok: true } : { ok: false, error: 'invalid X-Hub-Signature-256 signature' }
}

function checkSvix(auth: NonNullable<WebhookAuthentication['svix']>, req: Request, raw: Buffer, now: number): WebhookVerdict {
  const id = header(req, 'svix-id')
  const timestamp = header(req, 'svix-timestamp')
  const signatures = header(req, 'svix-signature')
  if (!id || !timestamp || !signatures) return { ok: false, error: 'missing svix-id, svix-timestamp or svix-signature header' }
  if (auth.verifyTimestamp) {
    const toleranceMs = parseDurationMs(auth.verifyTimestamp) ?? 5 * 60_000
    const sentMs = Number(timestamp) * 1000
    if (!Number.isFinite(sentMs) || Math.abs(now - sentMs) > toleranceMs) return { ok: false, error: 'svix-timestamp is outside the allowed window' }
  }
  const secret = secretOf(auth.secret)
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(raw).digest('base64')
  // The header lists space-separated `v1,<base64>` entries (several during a secret rotation).
  const matched = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2)
    return version === 'v1' && value !== undefined && sameText(value, expected)
  })
  return matched ? { ok: true } : { ok: false, error: 'invalid svix-signature' }
}

const JWT_ALGORITHMS: Record<string, { hash: string; dsa?: true; pss?: true }> = {
  RS256: { hash: 'sha256' },
  RS384: { hash: 'sha384' },
  RS512: { hash: 'sha512' },
  PS256: { hash: 'sha256', pss: true },
  ES256: { hash: 'sha256', dsa: true },
  ES384: { hash: 'sha384', dsa: true },
  ES512: { hash: 'sha512', dsa: true },
}

function decodeSegment(segment: string | undefined): Record<string, unknown> | null {
  if (!segment) return null
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/**
 * A bearer JWT verified against the keys at `jwksUri` with node:crypto (the `jose` package is not
 * a dependency): asymmetric algorithms only, since a JWKS publishes public keys; exp and nbf honoured.
 */
async function checkJwt(auth: NonNullable<WebhookAuthentication['jwt']>, req: Request, now: number, fetchJson: (url: string) => Promise<unknown>): Promise<WebhookVerdict> {
  const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization'))
  if (!match) return { ok: false, error: 'bearer token required' }
  const [headerPart, payloadPart, signaturePart] = match[1]!.split('.')
  const tokenHeader = decodeSegment(headerPart)
  const payload = decodeSegment(payloadPart)
  if (!tokenHeader || !payload || !signaturePart) return { ok: false, error: 'malformed token' }
  const algorithm = JWT_ALGORITHMS[String(tokenHeader.alg)]
  if (!algorithm) return { ok: false, error: `unsupported token algorithm ${String(tokenHeader.alg)}` }
  if (!auth.jwksUri) return { ok: false, error: 'the webhook names no jwksUri' }
  let keys: JsonWebKey[]
  try {
    const jwks = (await fetchJson(auth.jwksUri)) as { keys?: JsonWebKey[] }
    keys = Array.isArray(jwks?.keys) ? jwks.keys : []
  } catch (error) {
    return { ok: false, error: `could not read the JWKS: ${(error as Error).message}` }
  }
  const candidates = keys.filter((key) => tokenHeader.kid === undefined || key.kid === tokenHeader.kid)
  const signed = Buffer.from(`${headerPart}.${payloadPart}`)
  const signature = Buffer.from(signaturePart, 'base64url')
  const valid = candidates.some((jwk) => {
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' })
      return verify(algorithm.hash, signed, { key, ...(algorithm.dsa ? { dsaEncoding: 'ieee-p1363' as const } : {}), ...(algorithm.pss ? { padding: 6 } : {}) }, signature)
    } catch {
      return false
    }
  })
  if (!valid) return { ok: false, error: 'invalid token signature' }
  const seconds = now / 1000
  if (typeof payload.exp === 'number' && seconds >= payload.exp) return { ok: false, error: 'token has expired' }
  if (typeof payload.nbf === 'number' && seconds < payload.nbf) return { ok: false, error: 'token is not valid yet' }
  return { ok: true }
}

async function fetchJwks(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json()
}

export async function authenticateWebhook(
  auth: WebhookAuthentication | undefined,
  req: Request,
  raw: Buffer,
  options: { now?: number; fetchJson?: (url: string) => Promise<unknown> } = {},
): Promise<WebhookVerdict> {
  const now = options.now ?? Date.now()
  if (!auth) return { ok: true }
  if (auth.basic) return checkBasic(auth.basic, req)
  if (auth.github) return checkGithub(auth.github, req, raw)
  if (auth.svix) return checkSvix(auth.svix, req, raw, now)
  if (auth.jwt) return checkJwt(auth.jwt, req, now, options.fetchJson ?? fetchJwks)
  return { ok: true }
}

/** The run's `request` (resource-specs §2.3): {url, method, headers, params, content, json}. */
export function webhookRequest(req: Request, raw: Buffer): Record<string, unknown> {
  const content = raw.toString('utf8')
  let json: unknown
  try {
    json = content === '' ? undefined : JSON.parse(content)
  } catch {
    json = undefined
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    // The caller's credentials stay out of the stored run.
    if (name === 'authorization' || name === 'cookie') continue
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
  }
  const params: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.query)) {
    if (typeof value === 'string') params[name] = value
    else if (Array.isArray(value)) params[name] = value.map(String).join(',')
  }
  return { url: req.originalUrl ?? req.url, method: req.method, headers, params, content, ...(json === undefined ? {} : { json }) }
}
