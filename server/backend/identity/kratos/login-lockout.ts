import type { Request, Response } from 'express'
import { clientAddressOf } from '#server/ops/client-address.ts'
import { findLinkCode, linkToken, spendCode, storeCode } from './codes.ts'
import { isJsonClient, publicUrl, queryString, type KratosContext } from './context.ts'
import { KratosError } from './errors.ts'
import { findIdentityByEmail } from './identities.ts'
import { accountKey, beginLoginAttempt, loginSucceeded, unlockAccount } from './rate-limit.ts'

/** As long as the account's own lockout window: a link older than the lock it lifts is pointless. */
const UNLOCK_LINK_SECONDS = 24 * 3600

/** Counts a sign-in attempt for `identifier` from this request's client; throws 429 when refused. */
export async function beginLogin(ctx: KratosContext, req: Request, identifier: string): Promise<void> {
  await beginLoginAttempt(ctx.rateLimits, clientAddressOf(req), identifier, async () => mailUnlockLink(ctx, identifier))
}

export async function loginSucceededFor(ctx: KratosContext, req: Request, identifier: string): Promise<void> {
  await loginSucceeded(ctx.rateLimits, clientAddressOf(req), identifier)
}

/**
 * The account's global limit was just reached: its owner gets a one-time link that lifts the
 * lock, so an attacker guessing from many places cannot keep the owner out for the whole
 * window. Deferred like code mails: a locked unknown account answers exactly like a known one.
 */
function mailUnlockLink(ctx: KratosContext, identifier: string): void {
  ctx.defer('unlock mail', async () => {
    const identity = await findIdentityByEmail(ctx.db, identifier)
    if (!identity) return
    const token = linkToken()
    await storeCode(ctx.db, { kind: 'unlock_link', code: token, identityId: identity.id, address: accountKey(identifier), lifespanSeconds: UNLOCK_LINK_SECONDS })
    const link = publicUrl(ctx, `/self-service/login/unlock?${new URLSearchParams({ token }).toString()}`)
    await ctx.mailer.send({
      to: identity.traits.email,
      subject: 'Sign-in to your account was paused',
      text:
        `Hi,\n\nthere were too many failed attempts to sign in to your account, so sign-in is paused for up to ${UNLOCK_LINK_SECONDS / 3600} hours.\n\n` +
        `If you want to sign in now, open this link (it works once) and then sign in as usual:\n\n${link}\n\n` +
        'If the failed attempts were not yours, someone may be guessing your password: consider choosing a longer one after signing in.\n',
    })
  })
}

/** GET /self-service/login/unlock?token=: spends the link, lifts the lock, sends the browser to sign-in. */
export async function unlockWithLink(ctx: KratosContext, req: Request, res: Response): Promise<void> {
  const token = queryString(req, 'token')
  const code = token ? await findLinkCode(ctx.db, 'unlock_link', token) : undefined
  if (!code?.address || !(await spendCode(ctx.db, code.id))) {
    throw new KratosError(403, { reason: 'The unlock link is invalid, expired or was already used.' })
  }
  await unlockAccount(ctx.rateLimits, clientAddressOf(req), code.address)
  if (isJsonClient(req)) {
    res.json({ unlocked: true })
    return
  }
  res.redirect(303, `${ctx.uiBaseUrl().replace(/\/+$/, '')}/login`)
}
