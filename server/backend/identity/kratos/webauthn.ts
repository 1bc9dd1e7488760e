import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { isoBase64URL } from '@simplewebauthn/server/helpers'
import type { WebAuthnKey } from './identities.ts'

/** The relying party is the console origin: that is where the browser runs the ceremony. */
export function relyingParty(uiBaseUrl: string): { rpID: string; origin: string } {
  const url = new URL(uiBaseUrl)
  return { rpID: url.hostname, origin: url.origin }
}

export async function registrationOptions(input: { uiBaseUrl: string; userHandle: string; email: string; displayName: string; existing: WebAuthnKey[] }) {
  const { rpID } = relyingParty(input.uiBaseUrl)
  return generateRegistrationOptions({
    rpName: 'Lookout',
    rpID,
    userName: input.email,
    userDisplayName: input.displayName,
    userID: isoBase64URL.toBuffer(input.userHandle),
    attestationType: 'none',
    excludeCredentials: input.existing.map((key) => ({ id: key.id, transports: key.transports })),
    // Hardware keys as a second factor: no resident key needed, user presence is enough.
    authenticatorSelection: { residentKey: 'discouraged', userVerification: 'discouraged' },
  })
}

export async function verifyRegistration(input: { uiBaseUrl: string; challenge: string; response: unknown; displayName: string }): Promise<WebAuthnKey | undefined> {
  const { rpID, origin } = relyingParty(input.uiBaseUrl)
  try {
    const result = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: input.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    })
    if (!result.verified) return undefined
    const credential = result.registrationInfo.credential
    return {
      id: credential.id,
      public_key: isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      display_name: input.displayName,
      added_at: new Date().toISOString(),
      transports: credential.transports,
    }
  } catch {
    return undefined
  }
}

export async function authenticationOptions(input: { uiBaseUrl: string; keys: WebAuthnKey[] }) {
  const { rpID } = relyingParty(input.uiBaseUrl)
  return generateAuthenticationOptions({
    rpID,
    allowCredentials: input.keys.map((key) => ({ id: key.id, transports: key.transports })),
    userVerification: 'discouraged',
  })
}

/** The key that produced a valid assertion, with its new signature counter. */
export async function verifyAuthentication(input: { uiBaseUrl: string; challenge: string; response: unknown; keys: WebAuthnKey[] }): Promise<{ key: WebAuthnKey; newCounter: number } | undefined> {
  const { rpID, origin } = relyingParty(input.uiBaseUrl)
  const response = input.response as AuthenticationResponseJSON
  const key = input.keys.find((k) => k.id === response?.id)
  if (!key) return undefined
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: input.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: key.id, publicKey: isoBase64URL.toBuffer(key.public_key), counter: key.counter, transports: key.transports as never },
      requireUserVerification: false,
    })
    return result.verified ? { key, newCounter: result.authenticationInfo.newCounter } : undefined
  } catch {
    return undefined
  }
}

/**
 * Served at /.well-known/ory/webauthn.js. The `onclick` strings of the WebAuthn nodes call these
 * two functions with the server's options; they run the browser ceremony, write the result into
 * the hidden input and submit the surrounding form.
 */
export const WEBAUTHN_SCRIPT = `(function () {
  function toBuf(value) {
    var b64 = value.replace(/-/g, '+').replace(/_/g, '/');
    var bin = atob(b64 + '==='.slice((b64.length + 3) % 4));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function toB64(buf) {
    var bytes = new Uint8Array(buf), bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function submitWith(name, value) {
    var input = document.querySelector('input[name="' + name + '"]');
    if (!input) return;
    input.value = JSON.stringify(value);
    if (input.form) {
      var method = input.form.querySelector('input[name="method"][value="webauthn"]');
      if (!method) {
        method = document.createElement('input');
        method.type = 'hidden'; method.name = 'method'; method.value = 'webauthn';
        input.form.appendChild(method);
      }
      input.form.submit();
    }
  }
  window.__oryWebAuthnRegistration = function (opts) {
    var pk = Object.assign({}, opts, {
      challenge: toBuf(opts.challenge),
      user: Object.assign({}, opts.user, { id: toBuf(opts.user.id) }),
      excludeCredentials: (opts.excludeCredentials || []).map(function (c) { return Object.assign({}, c, { id: toBuf(c.id) }); })
    });
    navigator.credentials.create({ publicKey: pk }).then(function (cred) {
      submitWith('webauthn_register', {
        id: cred.id, rawId: toB64(cred.rawId), type: cred.type,
        response: {
          clientDataJSON: toB64(cred.response.clientDataJSON),
          attestationObject: toB64(cred.response.attestationObject),
          transports: cred.response.getTransports ? cred.response.getTransports() : []
        },
        clientExtensionResults: cred.getClientExtensionResults()
      });
    }).catch(function (err) { alert(err.message || err); });
  };
  window.__oryWebAuthnLogin = function (opts) {
    var pk = Object.assign({}, opts, {
      challenge: toBuf(opts.challenge),
      allowCredentials: (opts.allowCredentials || []).map(function (c) { return Object.assign({}, c, { id: toBuf(c.id) }); })
    });
    navigator.credentials.get({ publicKey: pk }).then(function (cred) {
      submitWith('webauthn_login', {
        id: cred.id, rawId: toB64(cred.rawId), type: cred.type,
        response: {
          clientDataJSON: toB64(cred.response.clientDataJSON),
          authenticatorData: toB64(cred.response.authenticatorData),
          signature: toB64(cred.response.signature),
          userHandle: cred.response.userHandle ? toB64(cred.response.userHandle) : undefined
        },
        clientExtensionResults: cred.getClientExtensionResults()
      });
    }).catch(function (err) { alert(err.message || err); });
  };
})();
`
