import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  openSecret,
  sealSecret,
  isSealed,
  redactSecrets,
  redactValue,
  SecretSealError,
} from '#server/backend/secrets/sealed-secrets.ts'
import type { Db } from '#server/db/client.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

let testDb: TestDb
let db: Db
const savedKey = process.env.LOOKOUT_SECRET_KEY

beforeAll(async () => {
  delete process.env.LOOKOUT_SECRET_KEY
  testDb = await createTestDb()
  db = testDb.db
})

afterEach(() => {
  if (savedKey === undefined) delete process.env.LOOKOUT_SECRET_KEY
  else process.env.LOOKOUT_SECRET_KEY = savedKey
})

afterAll(async () => {
  await testDb?.drop()
})

describe('sealed secrets', () => {
  it('round-trips through the key kept in the database; each encryption differs and hides the value', async () => {
    const first = await sealSecret(db, 'hunter2-password')
    const second = await sealSecret(db, 'hunter2-password')
    expect(isSealed(first)).toBe(true)
    expect(first).not.toContain('hunter2')
    expect(first).not.toBe(second)
    expect(await openSecret(db, first)).toBe('hunter2-password')
    expect(await openSecret(db, second)).toBe('hunter2-password')
    const { rows } = await db.query<{ count: number | string }>('SELECT count(*) AS count FROM lookout.playbook_secret_key')
    expect(Number(rows[0]!.count)).toBe(1)
  })

  it('uses LOOKOUT_SECRET_KEY when set, and still reads values sealed with the stored key', async () => {
    const sealedByDatabase = await sealSecret(db, 'older')
    process.env.LOOKOUT_SECRET_KEY = 'a-test-key-of-at-least-thirty-two-characters'
    const sealedByEnv = await sealSecret(db, 'newer')
    expect(sealedByEnv).toContain(':env:')
    expect(await openSecret(db, sealedByEnv)).toBe('newer')
    expect(await openSecret(db, sealedByDatabase)).toBe('older')
    process.env.LOOKOUT_SECRET_KEY = 'another-key-of-at-least-thirty-two-characters!'
    await expect(openSecret(db, sealedByEnv)).rejects.toThrow(SecretSealError)
    delete process.env.LOOKOUT_SECRET_KEY
    await expect(openSecret(db, sealedByEnv)).rejects.toThrow(/LOOKOUT_SECRET_KEY, which is not set/)
  })

  it('refuses a tampered value', async () => {
    const sealed = await sealSecret(db, 'value')
    const packed = Buffer.from(sealed.slice(sealed.lastIndexOf(':') + 1), 'base64')
    packed[packed.length - 1] = packed.at(-1)! ^ 0xff
    await expect(openSecret(db, `${sealed.slice(0, sealed.lastIndexOf(':') + 1)}${packed.toString('base64')}`)).rejects.toThrow(/could not be decrypted/)
  })

  it('passes values that are not encrypted through', async () => {
    expect(isSealed('plain')).toBe(false)
    expect(await openSecret(db, 'plain')).toBe('plain')
  })
})

describe('redaction', () => {
  it('replaces every occurrence, longest secrets first, and ignores empty ones', () => {
    expect(redactSecrets('token abc and abcdef and abc', ['abc', 'abcdef', ''])).toBe('token [REDACTED] and [REDACTED] and [REDACTED]')
    expect(redactSecrets('nothing here', [])).toBe('nothing here')
    expect(redactValue({ stdout: 'pw=abc', list: ['abc'], code: 1 }, ['abc'])).toEqual({ stdout: 'pw=[REDACTED]', list: ['[REDACTED]'], code: 1 })
  })
})
