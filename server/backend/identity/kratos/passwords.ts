import argon2 from 'argon2'
import { COMMON_PASSWORDS } from './common-passwords.ts'
import { texts, type UiText } from './ui-texts.ts'

export const PASSWORD_MIN_LENGTH = 8
// argon2 hashing of megabyte inputs is a cheap denial of service; Kratos caps at 4096 too.
export const PASSWORD_MAX_LENGTH = 4096

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 })
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password)
  } catch {
    return false
  }
}

// A fixed hash to verify against when the identifier is unknown, so a wrong e-mail costs as much
// time as a wrong password and response times do not reveal which accounts exist.
let decoyHash: Promise<string> | undefined
export function decoyVerify(password: string): Promise<boolean> {
  decoyHash ??= hashPassword('decoy-password-never-matches')
  return decoyHash.then((hash) => verifyPassword(hash, password)).then(() => false)
}

function longestCommonSubstring(a: string, b: string): number {
  let best = 0
  const previous = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0
    for (let j = 1; j <= b.length; j++) {
      const saved = previous[j] ?? 0
      previous[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : 0
      best = Math.max(best, previous[j] ?? 0)
      diagonal = saved
    }
  }
  return best
}

/** The policy error for a new password, or undefined when it may be used. */
export function passwordPolicyError(password: string, identifier: string | undefined): UiText | undefined {
  const length = [...password].length
  if (length < PASSWORD_MIN_LENGTH) return texts.passwordTooShort(PASSWORD_MIN_LENGTH, length)
  if (length > PASSWORD_MAX_LENGTH) return texts.passwordTooLong(PASSWORD_MAX_LENGTH, length)
  const lowered = password.toLowerCase()
  if (identifier) {
    const id = identifier.toLowerCase()
    // Same rule shape as Kratos: reject when most of the shorter string appears in the other.
    const shared = longestCommonSubstring(id, lowered)
    if (shared >= 5 && shared / Math.min(id.length, lowered.length) > 0.5) return texts.passwordTooSimilar()
  }
  if (COMMON_PASSWORDS.has(password) || COMMON_PASSWORDS.has(lowered)) return texts.passwordBreached()
  return undefined
}
