import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { TargetGuard } from '#server/backend/health/checks/target-guard.ts'

/**
 * The seam between a scraper type (where documents come from: files, HTTP, SQL, a script) and the
 * scrape pipeline (what every scraper shares: `items` splitting, the common fields as static
 * values or JSONPath, transform, changes, relationships, retention — resource-specs §3.7).
 * A source only fetches and parses; it never writes config items itself.
 */
export type ScrapedDocument = {
  /** The parsed document (YAML already converted to JSON); object, array or scalar. */
  config: unknown
  /** Where it came from (file path, URL, `query row 3`): job-history detail and change `source`. */
  source: string
  /**
   * What the source itself knows about the item, used only where the scraper entry leaves the
   * common field unset (kubernetesFile: id from metadata.uid, type `Kubernetes::<kind>`, name).
   */
  defaults?: {
    id?: string
    name?: string
    type?: string
    class?: string
    status?: string
    health?: string
    description?: string
    labels?: Record<string, string>
    createdAt?: string
  }
}

export type ScrapeRunContext = {
  db: Db
  logger: Logger
  /** Aborted on the scraper's `timeout` or when the process stops. */
  signal: AbortSignal
  /** The config_scrapers row being run. */
  scraperId: string
  namespace: string
  /**
   * Where network sources (http, sql) may connect, as for checks (target-guard.ts): a scraper
   * whose spec nobody with the exec permission wrote must not read this server's own or
   * link-local addresses. Absent = anywhere.
   */
  targets?: TargetGuard
}

/**
 * A scraper type under the ScrapeConfig spec (`file`, `http`, `sql`, `exec`, `kubernetesFile`…).
 * `entry` is one element of that list, validated by the resource spec validator. A failure is
 * thrown as an Error whose message goes to job history verbatim.
 */
export type ScraperSource = {
  kind: string
  fetch(entry: Record<string, unknown>, context: ScrapeRunContext): Promise<ScrapedDocument[]>
}

/** Why a source's work was stopped, for job history: the scraper's timeout, or the process stopping. */
export function abortReason(signal: AbortSignal): string {
  const reason = signal.reason as unknown
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'timed out (the scraper\'s timeout)'
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message) return reason.message
  if (typeof reason === 'string' && reason) return reason
  return 'aborted (the scraper timed out or the process is stopping)'
}
