/**
 * Shapes of a `notifications` row's JSON columns (data-model §8.1), zod-free so the console's
 * forms, the delivery pipeline and the document schema name one type.
 */

/** One entry of `custom_services` / `fallback_custom_services` (and of a team's `spec.notifications`). */
export type CustomService = {
  name?: string
  filter?: string
  url?: string
  connection?: string
  email?: string
  webhook?: Record<string, unknown>
  properties?: Record<string, unknown>
}

/** One entry of `inhibitions` (resource-specs §3.1). */
export type Inhibition = { direction?: 'outgoing' | 'incoming' | 'all'; soft?: boolean; depth?: number; from?: string; to?: string[] }
