/**
 * The console release of the platform whose screens and HTTP contract Lookout follows (spec 002
 * §2 "Top bar and user menu", §9). Shown beside Lookout's own version, never instead of it.
 */
export const COMPATIBLE_CONSOLE_VERSION = '1.4.48'

/** `Frontend: 0.1.0 (compatible with 1.4.48), Backend: v0.0.1234` — NA when the backend cannot say. */
export function formatVersionLine(frontendVersion: string, backendVersion: string | null): string {
  return `Frontend: ${frontendVersion} (compatible with ${COMPATIBLE_CONSOLE_VERSION}), Backend: ${backendVersion || 'NA'}`
}
