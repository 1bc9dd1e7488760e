import { open, stat } from 'node:fs/promises'
import { matchFiles } from '#server/backend/catalog/scrapers/scraped-files.ts'
import { LogInputError, newestFirst, type LogLine } from './log-line.ts'
import { structureLines } from './log-line-parsers.ts'
import type { LogQueryContext, LogWindow } from './log-query-context.ts'

/**
 * Log files on this server's disk (`files {paths: [glob], labels}`). Reading the server's files
 * is as much as running a command on it, so the caller admits only backends an exec holder wrote
 * (log-backend-trust.ts); `context.targets` restricted means untrusted and is refused here too.
 * Each line is parsed (`parse`, autodetect by default) for its time and fields; a line without a
 * time takes its file's modification time.
 */

/** Only a file's tail is read: a search wants recent lines, and a log can grow without bound. */
export const MAX_TAIL_BYTES = 8 * 1024 * 1024

export type FileSearch = { labels: Record<string, string>; text: string }

async function tail(file: string): Promise<{ text: string; mtime: Date }> {
  const info = await stat(file)
  const handle = await open(file, 'r')
  try {
    const length = Math.min(info.size, MAX_TAIL_BYTES)
    const buffer = Buffer.alloc(length)
    await handle.read(buffer, 0, length, info.size - length)
    let text = buffer.toString('utf8')
    // A cut tail starts mid-line; that partial line would read as a line of its own.
    if (length < info.size) text = text.slice(text.indexOf('\n') + 1)
    return { text, mtime: info.mtime }
  } finally {
    await handle.close()
  }
}

function labelsMatch(line: LogLine, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([name, value]) => (name === 'severity' ? line.severity === value : name === 'host' ? line.host === value : line.labels[name] === value))
}

export async function queryFiles(
  block: Record<string, unknown>,
  search: FileSearch,
  window: LogWindow,
  context: LogQueryContext,
  structure: { parse: unknown; mapping: unknown },
): Promise<LogLine[]> {
  if (await context.targets.isRestricted()) {
    throw new LogInputError("files backends read this server's disk and run only when someone holding the exec permission wrote the backend; ask an admin to save it")
  }
  const signal = context.signal ?? new AbortController().signal
  const files = await matchFiles(block, signal)
  const staticLabels = (block.labels ?? {}) as Record<string, string>
  const text = search.text.trim().toLowerCase()
  const found: LogLine[] = []
  for (const file of files) {
    const { text: content, mtime } = await tail(file)
    const raw = content
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((message): LogLine => ({ timestamp: mtime.toISOString(), message: message.replace(/\r$/, ''), labels: { ...staticLabels, path: file } }))
    for (const line of structureLines(raw, structure.parse ?? 'autodetect', structure.mapping ?? {}, new Date(), 'spec')) {
      const time = Date.parse(line.timestamp)
      if (time < window.start.getTime() || time > window.end.getTime()) continue
      if (text && !line.message.toLowerCase().includes(text)) continue
      if (!labelsMatch(line, search.labels)) continue
      found.push(line)
    }
  }
  return newestFirst(found).slice(0, window.limit)
}
