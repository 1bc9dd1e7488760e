import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { errors } from './errors.ts'

/** Kratos names the cookie after the public base URL so two instances on one host do not clash. */
export function csrfCookieName(publicBaseUrl: string): string {
  return `csrf_token_${createHash('sha256').update(publicBaseUrl).digest('hex')}`
}

export function newCsrfSecret(): string {
  return randomBytes(32).toString('base64url')
}

export function csrfHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

// The form value is the secret XOR a fresh pad, with the pad prepended: a different string on
// every render, so a compressed response cannot leak the secret (BREACH).
export function maskCsrf(secret: string): string {
  const raw = Buffer.from(secret, 'base64url')
  const pad = randomBytes(raw.length)
  const masked = Buffer.alloc(raw.length)
  for (let i = 0; i < raw.length; i++) masked[i] = (raw[i] ?? 0) ^ (pad[i] ?? 0)
  return Buffer.concat([pad, masked]).toString('base64url')
}

function unmaskCsrf(value: string): Buffer | undefined {
  const raw = Buffer.from(value, 'base64url')
  if (raw.length === 0 || raw.length % 2 !== 0) return undefined
  const half = raw.length / 2
  const out = Buffer.alloc(half)
  for (let i = 0; i < half; i++) out[i] = (raw[i] ?? 0) ^ (raw[half + i] ?? 0)
  return out
}

/**
 * Checks the submitted token against the cookie and the cookie against the hash stored on the
 * flow; throws 403 security_csrf_violation with the reason Kratos would give.
 */
export function assertCsrf(input: {
  cookieSecret: string | undefined
  hasCookieHeader: boolean
  submitted: string | undefined
  requireSubmitted: boolean
  flowHash: string | null
}): void {
  if (!input.hasCookieHeader) throw errors.csrf('The HTTP Cookie Header was not set.')
  if (!input.cookieSecret) throw errors.csrf('The HTTP Cookie Header was set but did not contain the anti-CSRF cookie.')
  if (input.flowHash && !sameHex(csrfHash(input.cookieSecret), input.flowHash)) {
    throw errors.csrf('The anti-CSRF cookie does not belong to this flow.')
  }
  if (input.submitted === undefined || input.submitted === '') {
    if (!input.requireSubmitted) return
    throw errors.csrf('The HTTP Cookie Header was set but the anti-CSRF token was not sent in the request body or the X-CSRF-Token header.')
  }
  const submitted = unmaskCsrf(input.submitted)
  const expected = Buffer.from(input.cookieSecret, 'base64url')
  if (!submitted || submitted.length !== expected.length || !timingSafeEqual(submitted, expected)) {
    throw errors.csrf('The HTTP Cookie Header was set and a CSRF token was sent but they do not match.')
  }
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex')
  const right = Buffer.from(b, 'hex')
  return left.length === right.length && timingSafeEqual(left, right)
}
