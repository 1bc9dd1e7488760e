import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { Queryable } from '#server/db/client.ts'

/**
 * Secrets sealed at rest: secret playbook parameters (resource-specs §2.2) in
 * `playbook_runs.parameters` and connection secrets (connections/connection-secrets.ts), opened
 * only where they are used (templating, a probe, a send).
 *
 * AES-256-GCM straight from node:crypto: it is authenticated encryption in the standard library,
 * one call each way, so a library would add a dependency and nothing we use.
 *
 * The key is LOOKOUT_SECRET_KEY (any text of 32+ characters, hashed to 32 bytes) or, when that is
 * unset, 32 random bytes generated once and kept in lookout.playbook_secret_key (migration 0282;
 * the name is from when playbooks were its only user), so every process sharing the database opens
 * what another sealed. Each value names which of the two keys sealed it: setting the variable
 * later does not make older values unreadable.
 *
 * Stored form: `lookout:enc:v1:<env|db>:<base64 of iv (12) | tag (16) | ciphertext>`.
 */
const PREFIX = 'lookout:enc:v1:'
type KeySource = 'env' | 'db'

export class SecretSealError extends Error {}

const storedKeys = new WeakMap<Queryable, Promise<Buffer>>()

function envKey(): Buffer | null {
  const text = process.env.LOOKOUT_SECRET_KEY
  return text ? createHash('sha256').update(text, 'utf8').digest() : null
}

async function databaseKey(db: Queryable): Promise<Buffer> {
  let key = storedKeys.get(db)
  if (!key) {
    key = (async () => {
      // Two processes racing here both insert; the loser's row is dropped and both read the winner's.
      await db.query('INSERT INTO lookout.playbook_secret_key (key) VALUES ($1) ON CONFLICT (singleton) DO NOTHING', [randomBytes(32)])
      const { rows } = await db.query<{ key: Buffer | Uint8Array }>('SELECT key FROM lookout.playbook_secret_key')
      const stored = rows[0]?.key
      if (!stored) throw new SecretSealError('the secret key could not be read from lookout.playbook_secret_key')
      return Buffer.from(stored)
    })()
    key.catch(() => storedKeys.delete(db))
    storedKeys.set(db, key)
  }
  return key
}

async function keyFor(db: Queryable, source: KeySource): Promise<Buffer> {
  if (source === 'db') return databaseKey(db)
  const key = envKey()
  if (!key) throw new SecretSealError('this secret was encrypted with LOOKOUT_SECRET_KEY, which is not set now')
  return key
}

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX)
}

export async function sealSecret(db: Queryable, plaintext: string): Promise<string> {
  const source: KeySource = envKey() ? 'env' : 'db'
  const key = await keyFor(db, source)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${PREFIX}${source}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`
}

/** The plain text of a stored value; values that are not encrypted come back as they are. */
export async function openSecret(db: Queryable, stored: string): Promise<string> {
  if (!isSealed(stored)) return stored
  const rest = stored.slice(PREFIX.length)
  const colon = rest.indexOf(':')
  const source = rest.slice(0, colon)
  if (source !== 'env' && source !== 'db') throw new SecretSealError(`unknown secret key source "${source}"`)
  const packed = Buffer.from(rest.slice(colon + 1), 'base64')
  if (packed.length < 28) throw new SecretSealError('a stored secret is truncated')
  const decipher = createDecipheriv('aes-256-gcm', await keyFor(db, source), packed.subarray(0, 12))
  decipher.setAuthTag(packed.subarray(12, 28))
  try {
    return Buffer.concat([decipher.update(packed.subarray(28)), decipher.final()]).toString('utf8')
  } catch {
    throw new SecretSealError(`a stored secret could not be decrypted (the ${source === 'env' ? 'LOOKOUT_SECRET_KEY' : 'stored key'} differs from the one that encrypted it)`)
  }
}

export const REDACTED = '[REDACTED]'

/** `text` with every occurrence of each secret replaced by [REDACTED]; longer secrets first, so one inside another is not half shown. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of [...new Set(secrets)].filter((value) => value !== '').sort((a, b) => b.length - a.length)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  }
  return out
}

/** A JSON value with secrets redacted in every string (keys included). */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value
  if (typeof value === 'string') return redactSecrets(value, secrets) as T
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets)) as T
  if (value && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redactSecrets(key, secrets), redactValue(item, secrets)])) as T
  }
  return value
}
