/**
 * The origin people use to reach the console: LOOKOUT_PUBLIC_URL when it is set (validated at
 * start by server/env.ts), else the request's own. The Remix adapter builds `request.url` from
 * Express's `req.protocol` and `req.hostname`, which follow X-Forwarded-Proto/-Host only with
 * LOOKOUT_TRUST_PROXY; without it server/ops/client-address.ts strips those headers, so a caller
 * cannot make the console name another host.
 */
export function getPublicOrigin(request: Request): string {
  const configured = process.env.LOOKOUT_PUBLIC_URL
  if (configured) {
    try {
      return new URL(configured).origin
    } catch {
      // server/env.ts refuses a bad value before the first request; a test may still set one.
    }
  }
  return new URL(request.url).origin
}
