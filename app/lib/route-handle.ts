import type { Access, Resource } from './access.ts'
import type { Feature } from './features.ts'

/**
 * What a route tells the shell about itself: the top-bar and browser title, and the guard
 * its loader applies (the feature it belongs to, the resource it reads).
 */
export type RouteGuard = { feature?: Feature; resource?: Resource; access?: Access }

/** A title is fixed, or read from the route's own loader data (a table label, an item name). */
export type RouteTitle = string | ((data: unknown) => string | undefined)

/**
 * `hydrate: false` makes the document static: root renders no <Scripts>, <ScrollRestoration> or
 * modulepreload links for it, so the browser loads no JavaScript at all (the kiosk wall boards,
 * which reload themselves with a meta refresh). Such a page must work as plain HTML.
 */
export type RouteHandle = RouteGuard & { title?: RouteTitle; hydrate?: false }

export const PRODUCT_NAME = 'Lookout'

export function documentTitle(prefix: string | undefined): string {
  return prefix ? `${prefix} | ${PRODUCT_NAME}` : PRODUCT_NAME
}

export function isRouteHandle(value: unknown): value is RouteHandle {
  return typeof value === 'object' && value !== null
}

/** The deepest route that names a title wins: a detail page over its list. */
export function getRouteTitle(matches: ReadonlyArray<{ handle?: unknown; data?: unknown } | undefined>): string | undefined {
  for (let i = matches.length - 1; i >= 0; i--) {
    const match = matches[i]
    const handle = match?.handle
    if (!isRouteHandle(handle) || !handle.title) continue
    const title = typeof handle.title === 'function' ? handle.title(match?.data) : handle.title
    if (title) return title
  }
  return undefined
}

/** True when any matched route asked for a document without client JavaScript. */
export function isStaticDocument(matches: ReadonlyArray<{ handle?: unknown } | undefined>): boolean {
  return matches.some((match) => isRouteHandle(match?.handle) && match.handle.hydrate === false)
}
