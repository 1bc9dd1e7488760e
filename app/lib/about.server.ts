import { z } from 'zod'
import { apiJson, type ApiArgs } from './gateway.server.ts'
import { sharedAcrossSessions } from './shared-data.server.ts'

/**
 * `/api/about` as Mission Control (`{appVersion, chartVersion}`), Lookout's own backend (the same
 * plus `Version`) and a lone canary-checker (`{Version}`) answer it (http-api §2.1.6). The
 * gateway routes it, so in upstream mode the answer is the upstream's.
 */
const AboutSchema = z.object({
  appVersion: z.string().optional().catch(undefined),
  chartVersion: z.string().optional().catch(undefined),
  Version: z.string().optional().catch(undefined),
})

/** The version the platform's console shows: `chartVersion || appVersion` (then `Version`), or null. */
export function backendVersionOf(body: unknown): string | null {
  const about = AboutSchema.safeParse(body)
  if (!about.success) return null
  const version = [about.data.chartVersion, about.data.appVersion, about.data.Version].map((text) => text?.trim()).find(Boolean)
  return version ?? null
}

/** The backend's version for the version line, or null when /about cannot say (shown as NA). */
export async function getBackendVersion(args: ApiArgs): Promise<string | null> {
  try {
    return await sharedAcrossSessions(args, 'about', async () => backendVersionOf((await apiJson<unknown>(args, '/about')).data))
  } catch (error) {
    // A sign-in redirect still applies; any other failure only costs the version.
    if (error instanceof Response) throw error
    return null
  }
}
