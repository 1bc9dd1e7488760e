import { describe, expect, it } from 'vitest'
import { creatorEmailOf } from '#app/lib/tokens.server.ts'

describe('token owner', () => {
  it('reads the creator back from the synthetic person of a scoped token', () => {
    expect(creatorEmailOf('dana+token:ci-bot@example.org')).toBe('dana@example.org')
    expect(creatorEmailOf('dana+token:@example.org')).toBe('dana@example.org')
  })

  it('gives nothing for an ordinary address or none', () => {
    expect(creatorEmailOf('dana@example.org')).toBeNull()
    expect(creatorEmailOf(null)).toBeNull()
    expect(creatorEmailOf(undefined)).toBeNull()
  })
})
