import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import { glob } from 'tinyglobby'
import { parseYamlDocuments } from '#contract/yaml-input.ts'

/** Larger files are reported and skipped: a scrape reads every file of every run. */
export const MAX_SCRAPED_FILE_BYTES = 16 * 1024 * 1024
const READ_CONCURRENCY = 32

export type ReadFile = { file: string; text: string }

function list(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item !== '') : []
}

/**
 * The files an entry's `paths` globs match, minus its `ignore` globs, sorted (a stable order
 * keeps job history and change sources readable). Absolute globs and globs relative to the
 * process's working directory both work.
 */
export async function matchFiles(entry: Record<string, unknown>, signal: AbortSignal): Promise<string[]> {
  const patterns = list(entry.paths)
  const ignore = list(entry.ignore)
  const files = await glob(patterns, { absolute: true, onlyFiles: true, ignore, dot: true, expandDirectories: false, signal })
  return files.sort()
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
