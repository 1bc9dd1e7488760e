import { describe, expect, it } from 'vitest'
import { EnvError, parseEnv } from '#server/env.ts'

describe('environment', () => {
  it('applies defaults for an empty environment', () => {
    const env = parseEnv({})
    expect(env.PORT).toBe(3000)
    expect(env.LOOKOUT_MODE).toBe('embedded')
    expect(env.LOOKOUT_DATA_DIR).toBe('./data')
    expect(env.DATABASE_URL).toBeUndefined()
    expect(env.LOOKOUT_DEMO_DATA).toBe(true)
  })

  it('names every bad variable in one error', () => {
    let error: unknown
    try {
      parseEnv({ PORT: 'eighty', DATABASE_URL: 'mysql://x', LOOKOUT_BOOTSTRAP_TOKEN: 'short', LOOKOUT_DEMO_DATA: 'maybe' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(EnvError)
    const message = (error as EnvError).message
    expect(message).toContain('PORT:')
    expect(message).toContain('DATABASE_URL: must be a postgres:// or postgresql:// connection URL')
    expect(message).toContain('LOOKOUT_BOOTSTRAP_TOKEN: must be at least 24 characters')
    expect(message).toContain('LOOKOUT_DEMO_DATA:')
    expect((error as EnvError).problems).toHaveLength(4)
  })

  it('requires a backend in upstream mode', () => {
    expect(() => parseEnv({ LOOKOUT_MODE: 'upstream' })).toThrow(/BACKEND_URL: is required in upstream mode/)
    expect(parseEnv({ LOOKOUT_MODE: 'upstream', BACKEND_URL: 'http://mc:8080/' }).BACKEND_URL).toBe('http://mc:8080')
  })

  it('treats an empty variable as unset', () => {
    expect(parseEnv({ DATABASE_URL: '', PORT: '' }).DATABASE_URL).toBeUndefined()
  })

  it('rejects non-http upstream URLs', () => {
    expect(() => parseEnv({ BACKEND_URL: 'ftp://mc' })).toThrow(/BACKEND_URL: must be an http/)
  })
})

describe('single-user mode', () => {
  it('is refused on a non-loopback address', () => {
    expect(() => parseEnv({ SESSION_DISABLED: 'true', HOST: '0.0.0.0' })).toThrow(/SESSION_DISABLED: true makes every visitor an admin/)
    expect(parseEnv({ SESSION_DISABLED: 'true' }).SESSION_DISABLED).toBe(true)
  })
})
