import { lstat, readdir } from 'node:fs/promises'
import path from 'node:path'
import { failResult, invalidResult, newResult, type CheckResult, type CheckRunner } from '../check-result.ts'
import { parseDurationMs, parseSizeBytes } from '#contract/canary/duration.ts'
import { renderFieldTemplate } from '../go-template.ts'

type FileEntry = { name: string; size: number; mode: string; modified: string; is_dir: boolean; mtimeMs: number }

const HOUR_MS = 3_600_000

function globToRegExp(pattern: string): RegExp {
  let source = ''
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index]!
    if (char === '*' && pattern[index + 1] === '*') {
      source += '.*'
      index += 1
      if (pattern[index + 1] === '/') index += 1
    } else if (char === '*') source += '[^/]*'
    else if (char === '?') source += '[^/]'
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${source}$`)
}

async function walk(dir: string, recursive: boolean, into: { full: string; stats: Awaited<ReturnType<typeof lstat>> }[]): Promise<void> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  for (const name of names) {
    const full = path.join(dir, name)
    let stats
    try { stats = await lstat(full) } catch { continue }
    into.push({ full, stats })
    if (recursive && stats.isDirectory()) await walk(full, recursive, into)
  }
}

/** `folder` (§1.7.6) on local paths, with globs and `**`. Remote schemes are reported as unsupported. */
export const runFolderCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  const started = performance.now()
  let target = String(spec.path ?? '')
  const fail = (type: string, message: string): CheckResult[] => {
    result.data.errorType = type
    return [failResult(result, message)]
  }
  if (/^(s3|gcs|smb|sftp):\/\//.test(target) || target.startsWith('\\\\') || spec.sftpConnection || spec.smbConnection || spec.awsConnection || spec.gcpConnection) {
    result.data.errorType = 'configuration_error'
    return [invalidResult(result, `remote folder paths are not supported: ${target}`)]
  }
  // Only local paths are served, and those are this server's own files (its data directory,
  // its configuration): like its own addresses, they are fenced from canaries nobody with the
  // exec permission vouched for.
  if (await context.targets?.isRestricted()) {
    result.data.errorType = 'configuration_error'
    return [invalidResult(result, "folder checks read this server's files; they run only for canaries written by someone holding the exec permission (ask an admin to save this canary)")]
  }
  const lastResult = target.includes('last_result') ? await context.lastResult() : null
  if (context.templatesEnabled) {
    try {
      target = renderFieldTemplate(target, { last_result: lastResult ?? {} })
    } catch (error) {
      result.data.errorType = 'configuration_error'
      return [invalidResult(result, `path: ${(error as Error).message}`)]
    }
  }
  const filter = (spec.filter ?? {}) as Record<string, unknown>
  const globAt = target.search(/[*?[]/)
  const base = globAt === -1 ? target : path.dirname(target.slice(0, globAt + 1))
  const matcher = globAt === -1 ? null : globToRegExp(path.resolve(target))
  const recursive = Boolean(spec.recursive) || target.includes('**')
  const found: { full: string; stats: Awaited<ReturnType<typeof lstat>> }[] = []
  try {
    await walk(base, recursive || (matcher !== null && target.slice(globAt).includes('/')), found)
  } catch (error) {
    return fail('listing_error', `listing ${base}: ${(error as Error).message}`)
  }
  const now = Date.now()
  const regex = typeof filter.regex === 'string' ? new RegExp(filter.regex) : null
  const sinceMs = typeof filter.since === 'string' ? parseSince(filter.since, now) : null
  const filterMinAge = parseDurationMs(filter.minAge ?? 0) ?? 0
  const filterMaxAge = filter.maxAge === undefined ? null : parseDurationMs(filter.maxAge)
  const filterMinSize = parseSizeBytes(filter.minSize ?? 0) ?? 0
  const filterMaxSize = filter.maxSize === undefined ? null : parseSizeBytes(filter.maxSize)
  const files: FileEntry[] = []
  for (const { full, stats } of found) {
    if (matcher && !matcher.test(path.resolve(full))) continue
    if (stats.isDirectory() && !matcher) continue
    const size = Number(stats.size)
    const mtimeMs = Number(stats.mtimeMs)
    const age = now - mtimeMs
    if (regex && !regex.test(path.basename(full))) continue
    if (sinceMs !== null && mtimeMs < sinceMs) continue
    if (age < filterMinAge || (filterMaxAge !== null && age > filterMaxAge)) continue
    if (size < filterMinSize || (filterMaxSize !== null && size > filterMaxSize)) continue
    files.push({ name: path.relative(base, full) || path.basename(full), size, mode: (Number(stats.mode) & 0o777).toString(8), modified: new Date(mtimeMs).toISOString(), is_dir: stats.isDirectory(), mtimeMs })
  }
  const plain = files.map(({ mtimeMs: _mtime, ...rest }) => rest)
  const byTime = [...files].sort((a, b) => a.mtimeMs - b.mtimeMs)
  const bySize = [...files].sort((a, b) => a.size - b.size)
  const strip = (file: FileEntry | undefined) => (file ? { name: file.name, size: file.size, mode: file.mode, modified: file.modified, is_dir: file.is_dir } : undefined)
  const summary = {
    files: plain,
    oldest: strip(byTime[0]),
    newest: strip(byTime[byTime.length - 1]),
    smallest: strip(bySize[0]),
    largest: strip(bySize[bySize.length - 1]),
    size: files.reduce((sum, file) => sum + file.size, 0),
  }
  result.data = { ...summary, errorType: '', results: summary }
  result.detail = summary
  result.duration = Math.round(performance.now() - started)
  context.check.endpoint = target

  const count = files.length
  if (spec.minCount !== undefined && count < Number(spec.minCount)) return fail('min_count', `too few files ${count} < ${spec.minCount}`)
  if (spec.maxCount !== undefined && count > Number(spec.maxCount)) return fail('max_count', `too many files ${count} > ${spec.maxCount}`)
  if (spec.availableSize !== undefined) return fail('available_size', 'availableSize is not supported on local paths')
  if (spec.totalSize !== undefined) return fail('total_size', 'totalSize is not supported on local paths')
  if (count === 0) return [result]
  // Ages are whole hours (§0.5); maxAge reads the oldest file, minAge the newest (§5 quirk 4).
  const hours = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
  const minAge = spec.minAge === undefined ? null : parseDurationMs(spec.minAge)
  const maxAge = spec.maxAge === undefined ? null : parseDurationMs(spec.maxAge)
  if (minAge !== null && hours(now - byTime[byTime.length - 1]!.mtimeMs) < minAge) return fail('min_age', `newest file is too young: ${byTime[byTime.length - 1]!.name}`)
  if (maxAge !== null && hours(now - byTime[0]!.mtimeMs) > maxAge) return fail('max_age', `oldest file is too old: ${byTime[0]!.name}`)
  const minSize = spec.minSize === undefined ? null : parseSizeBytes(spec.minSize)
  const maxSize = spec.maxSize === undefined ? null : parseSizeBytes(spec.maxSize)
  if (minSize !== null && bySize[0]!.size < minSize) return fail('min_size', `smallest file is too small: ${bySize[0]!.name} ${bySize[0]!.size}B < ${minSize}B`)
  if (maxSize !== null && bySize[bySize.length - 1]!.size > maxSize) return fail('max_size', `largest file is too large: ${bySize[bySize.length - 1]!.name} ${bySize[bySize.length - 1]!.size}B > ${maxSize}B`)
  return [result]
}

function parseSince(text: string, now: number): number | null {
  const math = /^now(?:-(.+))?$/.exec(text.trim())
  if (math) return now - (math[1] ? parseDurationMs(math[1]) ?? 0 : 0) + 1_000
  const time = Date.parse(text)
  return Number.isNaN(time) ? null : time + 1_000
}
