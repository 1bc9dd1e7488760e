import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { glob } from 'tinyglobby'
import { parseYamlDocuments } from '#contract/yaml-input.ts'
import type { ScrapeRunContext } from './scraper-source.ts'

/** Larger files are reported and skipped: a scrape reads every file of every run. */
export const MAX_SCRAPED_FILE_BYTES = 16 * 1024 * 1024
const READ_CONCURRENCY = 32

export type ReadFile = { file: string; text: string }

/**
 * Reading this server's files is as much as running a command on it (its data folder, /proc,
 * keys): like folder checks, file scrapers run only while their spec is one someone holding the
 * exec permission wrote (the per-spec trust of check-trust.ts).
 */
export async function refuseUntrustedFileRead(kind: string, context: ScrapeRunContext): Promise<void> {
  if (await context.targets?.isRestricted()) {
    throw new Error(`${kind} scrapers read this server's files and run only when someone holding the exec permission wrote the spec; ask an admin to save this scraper`)
  }
}

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : []
}

const GLOB_CHARS = /[*?[\]{}()!]/

// `/srv/inventory/**/*.yaml` becomes base `/srv/inventory` and pattern `**/*.yaml`.
function splitPattern(pattern: string): { base: string; rest: string } {
  const absolute = path.resolve(pattern)
  const parts = absolute.split(path.sep)
  const index = parts.findIndex((part) => GLOB_CHARS.test(part))
  if (index === -1) return { base: path.dirname(absolute), rest: path.basename(absolute) }
  return { base: parts.slice(0, index).join(path.sep) || path.sep, rest: parts.slice(index).join('/') }
}

// The files an entry's `paths` globs match, minus its `ignore` globs, sorted (a stable order
// keeps job history and change sources readable). Each glob is matched from its own fixed
// folder, so `ignore: ["**/skip.yaml"]` reads as users mean it whatever the working directory.
export async function matchFiles(entry: Record<string, unknown>, signal: AbortSignal): Promise<string[]> {
  const ignore = list(entry.ignore)
  const found = new Set<string>()
  for (const pattern of list(entry.paths)) {
    const { base, rest } = splitPattern(pattern)
    const relativeIgnore = ignore.map((glob) => (path.isAbsolute(glob) ? path.relative(base, glob) : glob)).filter((glob) => glob && !glob.startsWith('..'))
    const files = await glob([rest], { cwd: base, absolute: true, onlyFiles: true, ignore: relativeIgnore, dot: true, expandDirectories: false, signal })
    for (const file of files) found.add(file)
  }
  return [...found].sort()
}

/** Reads files a few at a time; a file that cannot be read becomes an error, not a failed run. */
export async function readFiles(files: string[], signal: AbortSignal, errors: string[]): Promise<ReadFile[]> {
  const out: (ReadFile | null)[] = new Array(files.length).fill(null)
  let next = 0
  const worker = async () => {
    while (next < files.length) {
      signal.throwIfAborted()
      const index = next++
      const file = files[index]!
      try {
        const info = await stat(file)
        if (info.size > MAX_SCRAPED_FILE_BYTES) {
          errors.push(`${file}: ${info.size} bytes is larger than the ${MAX_SCRAPED_FILE_BYTES}-byte limit; skipped`)
          continue
        }
        out[index] = { file, text: await readFile(file, 'utf8') }
      } catch (error) {
        errors.push(`${file}: ${(error as Error).message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker))
  return out.filter((item): item is ReadFile => item !== null)
}

/**
 * A file's documents as JSON values: `.json` parsed as JSON, `.yaml`/`.yml` (and anything that
 * is not JSON) as YAML through the guarded reader. Text that is neither stays a string (for
 * `format: properties` and scripts that read raw text).
 */
export function parseFileDocuments(file: ReadFile): unknown[] {
  const extension = path.extname(file.file).toLowerCase()
  if (extension === '.json') return [JSON.parse(file.text)]
  try {
    return parseYamlDocuments(file.text).filter((doc) => !doc.empty).map((doc) => doc.value)
  } catch (error) {
    if (extension === '.yaml' || extension === '.yml') throw error
    return [file.text]
  }
}
