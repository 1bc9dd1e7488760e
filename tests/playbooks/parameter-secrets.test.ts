import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  decryptParameter,
  encryptParameter,
  isEncrypted,
  redactSecrets,
  redactValue,
  SecretParameterError,
} from '#server/backend/playbooks/parameter-secrets.ts'
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

describe('secret parameters', () => {
  it('round-trips through the key kept in the database; each encryption differs and hides the value', async () => {
    const first = await encryptParameter(db, 'hunter2-password')
    const second = await encryptParameter(db, 'hunter2-password')
    expect(isEncrypted(first)).toBe(true)
    expect(first).not.toContain('hunter2')
    expect(first).not.toBe(second)
    expect(await decryptParameter(db, first)).toBe('hunter2-password')
    expect(await decryptParameter(db, second)).toBe('hunter2-password')
    const { rows } = await db.query<{ count: number | string }>('SELECT count(*) AS count FROM lookout.playbook_secret_key')
    expect(Number(rows[0]!.count)).toBe(1)
  })

  it('uses LOOKOUT_SECRET_KEY when set, and still reads values sealed with the stored key', async () => {
    const sealedByDatabase = await encryptParameter(db, 'older')
    process.env.LOOKOUT_SECRET_KEY = 'a-test-key-of-at-least-thirty-two-characters'
    const sealedByEnv = await encryptParameter(db, 'newer')
    expect(sealedByEnv).toContain(':env:')
    expect(await decryptParameter(db, sealedByEnv)).toBe('newer')
    expect(await decryptParameter(db, sealedByDatabase)).toBe('older')
    process.env.LOOKOUT_SECRET_KEY = 'another-key-of-at-least-thirty-two-characters!'
    await expect(decryptParameter(db, sealedByEnv)).rejects.toThrow(SecretParameterError)
    delete process.env.LOOKOUT_SECRET_KEY
    await expect(decryptParameter(db, sealedByEnv)).rejects.toThrow(/LOOKOUT_SECRET_KEY, which is not set/)
  })

  it('refuses a tampered value', async () => {
    const sealed = await encryptParameter(db, 'value')
    const packed = Buffer.from(sealed.slice(sealed.lastIndexOf(':') + 1), 'base64')
    packed[packed.length - 1] = packed.at(-1)! ^ 0xff
    await expect(decryptParameter(db, `${sealed.slice(0, sealed.lastIndexOf(':') + 1)}${packed.toString('base64')}`)).rejects.toThrow(/could not be decrypted/)
  })

  it('passes values that are not encrypted through', async () => {
    expect(isEncrypted('plain')).toBe(false)
    expect(await decryptParameter(db, 'plain')).toBe('plain')
  })
})

describe('redaction', () => {
  it('replaces every occurrence, longest secrets first, and ignores empty ones', () => {
    expect(redactSecrets('token abc and abcdef and abc', ['abc', 'abcdef', ''])).toBe('token [REDACTED] and [REDACTED] and [REDACTED]')
    expect(redactSecrets('nothing here', [])).toBe('nothing here')
    expect(redactValue({ stdout: 'pw=abc', list: ['abc'], code: 1 }, ['abc'])).toEqual({ stdout: 'pw=[REDACTED]', list: ['[REDACTED]'], code: 1 })
  })
})
