import type { ScrapedDocument, ScraperSource } from './scraper-source.ts'
import { matchFiles, parseFileDocuments, readFiles, refuseUntrustedFileRead } from './scraped-files.ts'

/**
 * `file` (resource-specs §3.7): every file the `paths` globs match, less `ignore`, is one config
 * (YAML converted to JSON; a file of several YAML documents is their list) unless `items`
 * splits it. `url` sources (git, http, s3) need a download step this console does not have.
 */
export const fileSource: ScraperSource = {
  kind: 'file',
  async fetch(entry, context) {
    if (typeof entry.url === 'string' && entry.url !== '' && !(Array.isArray(entry.paths) && entry.paths.length > 0)) {
      throw new Error(`file scraper: url sources (${entry.url}) are downloaded by config-db; here, list local files under paths`)
    }
    await refuseUntrustedFileRead('file', context)
    const files = await matchFiles(entry, context.signal)
    const errors: string[] = []
    const read = await readFiles(files, context.signal, errors)
    const documents: ScrapedDocument[] = []
    for (const file of read) {
      try {
        const docs = parseFileDocuments(file)
        if (docs.length === 0) continue
        documents.push({ config: docs.length === 1 ? docs[0] : docs, source: file.file })
      } catch (error) {
        errors.push(`${file.file}: ${(error as Error).message}`)
      }
    }
    for (const message of errors) context.logger.warn({ scraper: context.scraperId }, message)
    if (errors.length > 0) throw Object.assign(new PartialScrapeError(errors), { documents })
    return documents
  },
}

/**
 * Some documents were read, some were not: the run keeps what was read and job history lists
 * each failure. Vanished items are not deleted after such a run (a file that failed to parse
 * has not gone away).
 */
export class PartialScrapeError extends Error {
  documents: ScrapedDocument[] = []
  constructor(readonly problems: string[]) {
    super(problems.join('; '))
  }
}
