import { parseDurationMs } from '#contract/canary/duration.ts'
import { asBoolean, evaluateCel } from '#server/backend/health/expressions.ts'
import { LogInputError, stringOf, type LogLine } from './log-line.ts'

/** `match`: CEL expressions over each line (`message`, `timestamp`, `labels`, `severity`, `host`, `id`, or all as `line`); a line is kept when all yield true. */
export function matchLines(lines: LogLine[], expressions: unknown, field = 'logs'): LogLine[] {
  if (expressions === undefined || expressions === null) return lines
  const list = (Array.isArray(expressions) ? expressions : [expressions]).map(stringOf).filter((text) => text.trim() !== '')
  if (list.length === 0) return lines
  return lines.filter((line) =>
    list.every((expression) => {
      let value: unknown
      try {
        // Parts a line may lack are empty strings, so `line.severity == "error"` asks rather than fails.
        const bound = { severity: '', host: '', id: '', ...line }
        value = evaluateCel(expression, { ...bound, line: bound })
      } catch (error) {
        throw new LogInputError(`${field}.match "${expression}": ${(error as Error).message}`)
      }
      const decided = asBoolean(value)
      if (decided === null) throw new LogInputError(`${field}.match "${expression}" must yield true or false, got ${JSON.stringify(value)}`)
      return decided
    }),
  )
}

/**
 * `dedupe {fields, window}`: lines whose `fields` (`message`, `labels.<name>`, or a label name)
 * are equal are kept once, newest first, with `count`; with a `window` (a duration) only lines
 * that close in time to the kept one merge into it.
 */
export function dedupeLines(lines: LogLine[], dedupe: unknown, field = 'logs'): LogLine[] {
  if (!dedupe || typeof dedupe !== 'object') return lines
  const spec = dedupe as Record<string, unknown>
  const fields = Array.isArray(spec.fields) && spec.fields.length > 0 ? spec.fields.map(stringOf) : ['message']
  const windowMs = spec.window === undefined || spec.window === '' ? null : parseDurationMs(spec.window)
  if (spec.window !== undefined && spec.window !== '' && windowMs === null) throw new LogInputError(`${field}.dedupe.window "${stringOf(spec.window)}" is not a duration`)
  const fieldValue = (line: LogLine, name: string) =>
    name === 'message' ? line.message : name === 'timestamp' ? line.timestamp : line.labels[name.replace(/^labels\./, '')] ?? ''
  const kept = new Map<string, LogLine>()
  const out: LogLine[] = []
  for (const line of lines) {
    const key = JSON.stringify(fields.map((name) => fieldValue(line, name)))
    const previous = kept.get(key)
    const close = previous && (windowMs === null || Math.abs(Date.parse(previous.timestamp) - Date.parse(line.timestamp)) <= windowMs)
    if (previous && close) {
      previous.count = (previous.count ?? 1) + 1
      continue
    }
    const copy = { ...line, count: 1 }
    kept.set(key, copy)
    out.push(copy)
  }
  return out
}
