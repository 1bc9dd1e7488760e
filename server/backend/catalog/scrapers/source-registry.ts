import type { ScraperSource } from './scraper-source.ts'
import { execSource } from './exec-source.ts'
import { fileSource } from './file-source.ts'
import { httpSource } from './http-source.ts'
import { kubernetesFileSource } from './kubernetes-file-source.ts'
import { sqlSource } from './sql-source.ts'

/**
 * Scraper types that run in this process, by their key under the ScrapeConfig spec
 * (resource-specs §3.7). One line per source module; the pipeline never names a source itself.
 */
const SOURCES: ScraperSource[] = [
  fileSource,
  execSource,
  kubernetesFileSource,
  httpSource,
  sqlSource,
  // `postgres:` entries are sql entries whose driver defaults to PostgreSQL (resource-specs §3.7).
  { kind: 'postgres', fetch: (entry, context) => sqlSource.fetch({ driver: 'postgres', ...entry }, context) },
]

const BY_KIND = new Map(SOURCES.map((source) => [source.kind, source]))

/**
 * Scraper types accepted and stored but only run by their own platform (they need cluster or
 * cloud credentials and SDKs this console does not carry). Running one records a job-history
 * error naming the platform instead of failing the run loop.
 */
export const PLATFORM_SCRAPER_KINDS: Readonly<Record<string, string>> = {
  kubernetes: 'a Kubernetes cluster (config-db or the Mission Control agent)',
  aws: 'AWS (config-db with AWS credentials)',
  azure: 'Azure (config-db with Azure credentials)',
  gcp: 'Google Cloud (config-db with GCP credentials)',
  github: 'GitHub (config-db)',
  githubActions: 'GitHub Actions (config-db)',
  azureDevops: 'Azure DevOps (config-db)',
  trivy: 'Trivy inside a cluster (config-db)',
  terraform: 'Terraform state access (config-db)',
  slack: 'Slack (config-db)',
  clickhouse: 'ClickHouse (config-db)',
  logs: 'a log backend (config-db)',
  pubsub: 'a message queue (config-db)',
  playwright: 'a browser runner (config-db)',
  openssf: 'OpenSSF scorecards (config-db)',
  gcpAudit: 'Google Cloud audit logs (config-db)',
}

/** The source that runs `kind` here, or undefined when this process cannot run it. */
export function scraperSourceFor(kind: string): ScraperSource | undefined {
  return BY_KIND.get(kind)
}

/** Every kind with a source in this process (what the editor offers as runnable). */
export function runnableScraperKinds(): string[] {
  return [...BY_KIND.keys()]
}
