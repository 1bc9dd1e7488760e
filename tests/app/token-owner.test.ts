import { describe, expect, it } from 'vitest'
import { creatorEmailOf } from '#app/lib/tokens.server.ts'
import { maskToken } from '#app/components/token-created.tsx'
import { mcpSetups } from '#app/lib/token-scopes.ts'

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

describe('masked MCP snippets', () => {
  it('carry the mask, never the token, and the same endpoint', () => {
    const token = 'lk_0123456789abcdefghijklmnopqrstuvwxyz0123456789'
    const masked = mcpSetups('https://lookout.example.org/', maskToken(token))
    const real = mcpSetups('https://lookout.example.org/', token)
    expect(masked.map((setup) => setup.id)).toEqual(real.map((setup) => setup.id))
    for (const setup of masked) {
      expect(setup.code).not.toContain(token)
      expect(setup.code).toContain('https://lookout.example.org/mcp')
      expect(setup.code).toContain('•'.repeat(32))
    }
    expect(maskToken('short')).toBe('•••••')
  })
})
