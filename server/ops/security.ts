import { randomBytes } from 'node:crypto'
import type { NextFunction, Request, Response } from 'express'
import helmet, { strictTransportSecurity } from 'helmet'

/** A fresh nonce per response; Remix puts it on every script tag it renders. */
export function cspNonce(_req: Request, res: Response, next: NextFunction): void {
  res.locals.cspNonce = randomBytes(16).toString('base64')
  next()
}

export function securityHeaders(options: { isProduction: boolean; reportOnly: boolean }) {
  const nonce = (_req: unknown, res: unknown) => `'nonce-${(res as Response).locals.cspNonce as string}'`
  const headers = helmet({
    contentSecurityPolicy: {
      // Vite's dev server injects modules and opens a websocket; production runs strict.
      reportOnly: options.reportOnly,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': options.isProduction ? ["'self'"] : ["'self'", 'ws:', 'wss:'],
        'font-src': ["'self'", 'data:'],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'img-src': ["'self'", 'data:', 'https:'],
        'object-src': ["'none'"],
        'script-src': options.isProduction ? ["'strict-dynamic'", nonce] : ["'self'", "'unsafe-inline'", "'unsafe-eval'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'upgrade-insecure-requests': null,
      },
    },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'same-origin' },
    // Set below, on answers to requests that came over TLS only.
    strictTransportSecurity: false,
  })
  // A browser ignores HSTS over plain HTTP, and sending it to a local http:// console would pin
  // nothing. Over TLS (directly, or behind a proxy Lookout trusts via LOOKOUT_TRUST_PROXY that
  // says X-Forwarded-Proto: https) it keeps later visits on HTTPS.
  const hsts = strictTransportSecurity({ maxAge: 31_536_000, includeSubDomains: true })
  return (req: Request, res: Response, next: NextFunction) => {
    headers(req, res, (error?: unknown) => {
      if (error) next(error)
      else if (req.secure) hsts(req, res, next)
      else next()
    })
  }
}
