import type { Env } from '#server/env.ts'
import type { ServiceName, SubBase } from '#contract/sub-bases.ts'

export type UpstreamTarget = {
  /** Base URL requests go to. */
  url: string
  /**
   * Whether the sub-base prefix is kept: Mission Control (BACKEND_URL) routes on the first
   * segment itself (`/api/db/x` → `BACKEND/db/x`); a per-service URL points straight at that
   * service (`/api/db/x` → `POSTGREST/x`). Kratos lives under `/kratos` on Mission Control.
   */
  pathPrefix: string
}

const PER_SERVICE_URL: Partial<Record<ServiceName, keyof Env>> = {
  postgrest: 'UPSTREAM_POSTGREST_URL',
  'canary-checker': 'UPSTREAM_CANARY_URL',
  'config-db': 'UPSTREAM_CONFIG_DB_URL',
  'apm-hub': 'UPSTREAM_APM_URL',
  kratos: 'KRATOS_PUBLIC_URL',
}

/**
 * Where a sub-base goes: a per-service URL when one is configured (in either mode), else
 * BACKEND_URL in upstream mode, else undefined — the embedded backend answers.
 */
export function upstreamFor(subBase: SubBase, env: Env): UpstreamTarget | undefined {
  const key = PER_SERVICE_URL[subBase.service]
  const perService = key ? (env[key] as string | undefined) : undefined
  if (perService) {
    return { url: perService, pathPrefix: subBase.service === 'apm-hub' ? '/search' : '' }
  }
  if (env.LOOKOUT_MODE === 'upstream' && env.BACKEND_URL) {
    if (subBase.service === 'kratos') return { url: env.BACKEND_URL, pathPrefix: '/kratos' }
    if (subBase.service === 'apm-hub') return { url: env.BACKEND_URL, pathPrefix: '/apm/search' }
    return { url: env.BACKEND_URL, pathPrefix: subBase.base }
  }
  return undefined
}
