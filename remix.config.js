// The Remix configuration: route conventions, ignored route files and future flags. vite.config.ts
// hands it to the Remix Vite plugin, and app/routes.ts reads `ignoredRouteFiles` from here, so
// this file alone decides which modules under app/routes are routes and which v3 behaviours
// the console runs with.

/**
 * Files under app/routes that are never routes: server-only and client-only siblings of a route
 * (`*.server.ts`, `*.client.ts`), tests, and private (`__*`) or hidden files.
 */
export const ignoredRouteFiles = ['**/*.server.*', '**/*.client.*', '**/*.test.*', '**/__*.*', '**/.*']

/**
 * Remix v3 behaviours turned on now. With `v3_routeConfig` the routes come from app/routes.ts,
 * which applies the flat-routes file convention (`@remix-run/fs-routes`) with the list above.
 */
export const future = {
  v3_fetcherPersist: true,
  v3_relativeSplatPath: true,
  v3_throwAbortReason: true,
  v3_lazyRouteDiscovery: true,
  v3_singleFetch: true,
  v3_routeConfig: true,
}

/** @type {import('@remix-run/dev').VitePluginConfig} */
const remixConfig = {
  appDirectory: 'app',
  // LOOKOUT_BUILD_DIR builds elsewhere than build/ (measuring a change without replacing the
  // build a running server or another benchmark reads).
  buildDirectory: process.env.LOOKOUT_BUILD_DIR || 'build',
  future,
}

export default remixConfig
