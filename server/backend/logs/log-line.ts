/**
 * What every log backend answers and what the post-processing (parse, mapping, match, dedupe)
 * works on. Shared by `POST /logs` and the playbook `logs` action (resource-specs §2.5).
 */
export type LogLine = { timestamp: string; message: string; labels: Record<string, string>; count?: number; severity?: string; host?: string; id?: string }

/**
 * A problem with what the caller or the spec asked for (a missing field, a bad parser name): the
 * API answers 400 with the message, the playbook action fails with it. Anything else is the
 * backend's own failure.
 */
export class LogInputError extends Error {}

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value)
}

/** Newest first, as every backend is asked for; lines without a readable time sort last. */
export function newestFirst<T extends LogLine>(lines: T[]): T[] {
  const time = (line: T) => {
    const value = Date.parse(line.timestamp)
    return Number.isNaN(value) ? -Infinity : value
  }
  return lines.sort((a, b) => time(b) - time(a))
}
