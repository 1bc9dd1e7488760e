/**
 * Kratos UI texts: stable numeric ids (clients translate by id) with the English text and the
 * interpolated values in `context`. Ids and wording follow Kratos v1.3.
 */
export type UiText = { id: number; text: string; type: 'info' | 'error' | 'success'; context?: Record<string, unknown> }

const info = (id: number, text: string, context?: Record<string, unknown>): UiText => ({ id, text, type: 'info', ...(context ? { context } : {}) })
const error = (id: number, text: string, context: Record<string, unknown> = {}): UiText => ({ id, text, type: 'error', context })
const success = (id: number, text: string, context?: Record<string, unknown>): UiText => ({ id, text, type: 'success', ...(context ? { context } : {}) })

export const texts = {
  // login
  signIn: () => info(1010001, 'Sign in'),
  confirmAction: () => info(1010003, 'Please confirm this action by verifying that it is you.'),
  secondFactor: () => info(1010004, 'Please complete the second authentication challenge.'),
  authenticationCode: () => info(1010006, 'Authentication code'),
  backupCode: () => info(1010007, 'Backup recovery code'),
  signInWithHardwareKey: () => info(1010008, 'Sign in with hardware key'),
  useAuthenticator: () => info(1010009, 'Use Authenticator'),
  useBackupCode: () => info(1010010, 'Use backup recovery code'),
  signInWithPassword: () => info(1010022, 'Sign in with password'),
  // registration
  signUp: () => info(1040001, 'Sign up'),
  // settings
  settingsSaved: () => success(1050001, 'Your changes have been saved!'),
  unlinkTotp: () => info(1050004, 'Unlink TOTP Authenticator App'),
  totpQr: () => info(1050005, 'Authenticator app QR code'),
  totpSecret: (secret: string) => info(1050006, secret, { secret }),
  revealLookup: () => info(1050007, 'Reveal backup recovery codes'),
  regenerateLookup: () => info(1050008, 'Generate new backup recovery codes'),
  lookupCode: (code: string) => info(1050009, code, { secret: code }),
  lookupCodesLabel: () => info(1050010, 'These are your back up recovery codes. Please keep them in a safe place!'),
  confirmLookup: () => info(1050011, 'Confirm backup recovery codes'),
  addSecurityKey: () => info(1050012, 'Add security key'),
  securityKeyName: () => info(1050013, 'Name of the security key'),
  lookupCodeUsed: (usedAt: string) => info(1050014, `Secret was used at ${usedAt}`, { used_at: usedAt }),
  lookupCodes: (secrets: UiText[]) => info(1050015, secrets.map((s) => s.text).join(', '), { secrets }),
  disableLookup: () => info(1050016, 'Disable this method'),
  totpSecretLabel: () => info(1050017, 'This is your authenticator app secret. Use it if you can not scan the QR code.'),
  removeSecurityKey: (displayName: string, addedAt: string) =>
    info(1050018, `Remove security key "${displayName}"`, { display_name: displayName, added_at: addedAt }),
  // recovery
  recovered: (minutes: number) =>
    success(
      1060001,
      `You successfully recovered your account. Please change your password or set up an alternative login method (e.g. social sign in) within the next ${minutes.toFixed(2)} minutes.`,
      { minutes },
    ),
  recoveryCodeSent: () =>
    info(
      1060003,
      'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  // node labels
  password: () => info(1070001, 'Password'),
  trait: (title: string) => info(1070002, title, { title }),
  save: () => info(1070003, 'Save'),
  id: () => info(1070004, 'ID'),
  verifyCode: () => info(1070006, 'Verify code'),
  email: () => info(1070007, 'Email'),
  resendCode: () => info(1070008, 'Resend code'),
  continue: () => info(1070009, 'Continue'),
  recoveryCode: () => info(1070010, 'Recovery code'),
  verificationCode: () => info(1070011, 'Verification code'),
  // verification
  verificationCodeSent: () =>
    info(
      1080003,
      'An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
    ),
  verified: () => success(1080002, 'You successfully verified your email address.'),
  // validation
  generic: (reason: string) => error(4000001, reason, { reason }),
  missing: (property: string) => error(4000002, `Property ${property} is missing.`, { property }),
  invalidCredentials: () =>
    error(4000006, 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.'),
  duplicate: () => error(4000007, 'An account with the same identifier (email, phone, username, ...) exists already.'),
  invalidTotp: () => error(4000008, 'The provided authentication code is invalid, please try again.'),
  noTotp: () => error(4000011, 'You have no TOTP device set up.'),
  lookupUsed: () => error(4000012, 'This backup recovery code has already been used.'),
  noLookup: () => error(4000014, 'You have no backup recovery codes set up.'),
  noWebAuthn: () => error(4000015, 'You have no WebAuthn device set up.'),
  lookupInvalid: () => error(4000016, 'The backup recovery code is not valid.'),
  passwordTooSimilar: () => error(4000031, 'The password can not be used because it is too similar to the identifier.'),
  passwordTooShort: (minLength: number, actualLength: number) =>
    error(4000032, `The password must be at least ${minLength} characters long, but got ${actualLength}.`, {
      min_length: minLength,
      actual_length: actualLength,
    }),
  passwordTooLong: (maxLength: number, actualLength: number) =>
    error(4000033, `The password must be at most ${maxLength} characters long, but got ${actualLength}.`, {
      max_length: maxLength,
      actual_length: actualLength,
    }),
  passwordBreached: () => error(4000034, 'The password has been found in data breaches and must no longer be used.'),
  // flow errors
  loginExpired: (minutes: number) => error(4010001, `The login flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, { minutes }),
  noStrategy: () => error(4010002, 'Could not find a strategy to log you in with. Did you fill out the form correctly?'),
  registrationExpired: (minutes: number) => error(4040001, `The registration flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, { minutes }),
  noRegistrationStrategy: () => error(4040002, 'Could not find a strategy to sign you up with. Did you fill out the form correctly?'),
  settingsExpired: (minutes: number) => error(4050001, `The settings flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, { minutes }),
  recoveryExpired: (minutes: number) => error(4060005, `The recovery flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, { minutes }),
  recoveryCodeInvalid: () => error(4060006, 'The recovery code is invalid or has already been used. Please try again.'),
  verificationExpired: (minutes: number) => error(4070005, `The verification flow expired ${minutes.toFixed(2)} minutes ago, please try again.`, { minutes }),
  verificationCodeInvalid: () => error(4070006, 'The verification code is invalid or has already been used. Please try again.'),
} as const
