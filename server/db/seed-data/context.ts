import { createHash } from 'node:crypto'

/**
 * The determinism primitives of the demo estate: a seeded PRNG, ids derived from the seed and a
 * stable name, and clock helpers relative to a fixed `now`. Nothing in the seed may call
 * Math.random(), crypto.randomUUID() or new Date() on its own, or two runs would diverge.
 */

export type Row = Record<string, unknown>

export type Random = {
  /** Uniform in [0, 1). */
  next(): number
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number
  /** Float in [min, max). */
  between(min: number, max: number): number
  chance(probability: number): boolean
  pick<T>(items: readonly T[]): T
  /** `count` distinct items, order decided by the generator. */
  sample<T>(items: readonly T[], count: number): T[]
}

/** mulberry32: 32-bit state, good enough spread for demo data and trivially reproducible. */
function mulberry32(state: number): () => number {
  let a = state >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function createRandom(state: number): Random {
  const next = mulberry32(state)
  const random: Random = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    between: (min, max) => min + next() * (max - min),
    chance: (probability) => next() < probability,
    pick(items) {
      if (items.length === 0) throw new Error('cannot pick from an empty list')
      return items[Math.floor(next() * items.length)]!
    },
    sample(items, count) {
      const pool = [...items]
      for (let i = pool.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[pool[i], pool[j]] = [pool[j]!, pool[i]!]
      }
      return pool.slice(0, Math.min(count, pool.length))
    },
  }
  return random
}

function digest(parts: readonly (string | number)[]): Buffer {
  return createHash('sha256').update(parts.join('\u0000')).digest()
}

export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

export type SeedContext = {
  readonly seed: number
  readonly now: Date
  /**
   * A stable uuid for one entity of the estate: the same seed, kind and name always give the
   * same id, so a re-run finds its own rows and tests can compare two databases.
   */
  id(kind: string, name: string): string
  /**
   * A generator of its own per domain, so adding a choice in one domain does not shift every
   * value drawn after it in the others.
   */
  random(stream: string): Random
  /** ISO timestamp `ms` milliseconds before `now`. */
  ago(ms: number): string
  /** ISO timestamp `ms` milliseconds after `now`. */
  ahead(ms: number): string
}

export function createSeedContext(seed: number, now: Date): SeedContext {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new Error(`seed must be an integer between 0 and ${0xffffffff}, got ${seed}`)
  }
  if (Number.isNaN(now.getTime())) throw new Error('now must be a valid date')
  const nowMs = now.getTime()
  return {
    seed,
    now,
    id(kind, name) {
      const bytes = digest(['lookout-demo', seed, kind, name]).subarray(0, 16)
      // Version 4 / RFC 4122 variant bits, so strict uuid validators accept the ids.
      bytes[6] = (bytes[6]! & 0x0f) | 0x40
      bytes[8] = (bytes[8]! & 0x3f) | 0x80
      const hex = bytes.toString('hex')
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
    },
    random(stream) {
      return createRandom(digest(['lookout-demo-stream', seed, stream]).readUInt32LE(0))
    },
    ago: (ms) => new Date(nowMs - Math.round(ms)).toISOString(),
    ahead: (ms) => new Date(nowMs + Math.round(ms)).toISOString(),
  }
}
