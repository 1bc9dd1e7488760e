/**
 * Keeps the server's own secrets out of anything a user-defined process or check produces and
 * Lookout stores (check statuses, job history, later playbook action results). A script can
 * always find the values it runs next to (it may read files the server reads), so output is
 * scrubbed before it is written, whatever printed it.
 *
 * What counts as secret: the value of every environment variable whose name says so (token,
 * secret, password, key, credential, cookie, DSN…), the database and mail URLs whole, and any
 * URL-valued variable that carries a password (the URL and the password alone, raw and
 * percent-decoded). Values shorter than MIN_SECRET_LENGTH are left alone: redacting "1" or
 * "true" would mangle every output and protect nothing.
 */

export const REDACTED = '[REDACTED]'
export const MIN_SECRET_LENGTH = 8

const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|PRIVATE|CREDENTIAL|COOKIE|DSN|API_?KEY|ACCESS_?KEY|(^|_)KEY($|_)|(^|_)AUTH($|_)|SIGNING|SALT)/i
// Always secret, credentials or not: they name the database and the mail relay the server uses.
const SECRET_URLS = new Set(['DATABASE_URL', 'SMTP_URL'])

function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return undefined
  try {
    const url = new URL(value)
    return url.password || undefined
  } catch {
    // Connection strings that are not WHATWG URLs (several hosts, odd characters): take the
    // userinfo by hand.
    const match = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@/]+)@/i.exec(value)
    return match?.[1]
  }
}

/** The secret values in an environment (the server's own, by default). */
export function secretValuesFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  const values = new Set<string>()
  const add = (value: string | undefined) => {
    if (value && value.length >= MIN_SECRET_LENGTH) values.add(value)
  }
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue
    const password = urlPassword(value)
    if (password) {
      add(value)
      add(password)
      try {
        add(decodeURIComponent(password))
      } catch {
        // Not percent-encoded text: the raw form is already listed.
      }
    }
    if (SECRET_URLS.has(name) || SECRET_NAME.test(name)) add(value)
  }
  return [...values]
}

export type Redactor = {
  /** A copy with every secret value replaced; strings inside arrays and objects (and keys) too. */
  redact<T>(value: T): T
  redactText(text: string): string
  readonly secretCount: number
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

export function createRedactor(secrets: Iterable<string>): Redactor {
  // Longest first, so a URL is replaced whole before its password part is looked for.
  const list = [...new Set(secrets)].filter((value) => value.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length)
  const pattern = list.length > 0 ? new RegExp(list.map(escapeRegExp).join('|'), 'g') : null

  const redactText = (text: string): string => (pattern && text.length >= MIN_SECRET_LENGTH ? text.replace(pattern, REDACTED) : text)

  const walk = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return redactText(value)
    if (value === null || typeof value !== 'object' || depth > 64) return value
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1))
    if (value instanceof Date || Buffer.isBuffer(value)) return value
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) out[redactText(key)] = walk(child, depth + 1)
    return out
  }

  return {
    redact: <T>(value: T): T => (pattern ? (walk(value, 0) as T) : value),
    redactText,
    secretCount: list.length,
  }
}

let cached: { at: number; signature: string; redactor: Redactor } | undefined
// Reading process.env costs a call into the C++ side per variable; at thousands of check
// results a second the environment is read at most once a second instead.
const ENV_RECHECK_MS = 1_000

/**
 * The redactor for this process's environment, rebuilt when the secret values change (a
 * variable set at run time is covered within a second).
 */
export function serverRedactor(): Redactor {
  const now = Date.now()
  if (cached && now - cached.at < ENV_RECHECK_MS) return cached.redactor
  const secrets = secretValuesFromEnv(process.env)
  const signature = secrets.join('\u0000')
  if (!cached || cached.signature !== signature) cached = { at: now, signature, redactor: createRedactor(secrets) }
  else cached.at = now
  return cached.redactor
}
