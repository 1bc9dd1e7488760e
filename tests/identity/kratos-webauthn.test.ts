import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isoCBOR } from '@simplewebauthn/server/helpers'
import { createIdentity } from '#server/backend/identity/kratos/identities.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { UI_BASE, csrfOf, nodeNamed, passwordLogin, startKratos, type Harness } from './kratos-harness.ts'

const PASSWORD = 'hardware keys are nice 7'
const b64 = (buf: Uint8Array) => Buffer.from(buf).toString('base64url')
const testApp = useTestApp()
let kratos: Harness

beforeAll(async () => {
  kratos = await startKratos(testApp.db)
  await createIdentity(testApp.db, { email: 'key@example.com', firstName: 'Key', lastName: 'Holder', password: PASSWORD })
})
afterAll(async () => {
  await kratos?.close()
})

/** A software authenticator: one ES256 key, attestation "none", as a browser would report it. */
function softwareAuthenticator() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = publicKey.export({ format: 'jwk' })
  const credentialId = randomBytes(16)
  const rpIdHash = createHash('sha256').update(new URL(UI_BASE).hostname).digest()
  let counter = 0
  const u32 = (n: number) => Buffer.from([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255])
  return {
    register(challenge: string) {
      const cose = new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ])
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x41]), u32(counter), Buffer.alloc(16), Buffer.from([0, credentialId.length]), credentialId, Buffer.from(isoCBOR.encode(cose))])
      const attestation = new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]])
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge, origin: UI_BASE, crossOrigin: false }))
      return {
        id: b64(credentialId),
        rawId: b64(credentialId),
        type: 'public-key',
        response: { clientDataJSON: b64(clientData), attestationObject: b64(isoCBOR.encode(attestation as never)), transports: ['usb'] },
        clientExtensionResults: {},
      }
    },
    assert(challenge: string) {
      counter += 1
      const authData = Buffer.concat([rpIdHash, Buffer.from([0x01]), u32(counter)])
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge, origin: UI_BASE, crossOrigin: false }))
      const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(clientData).digest()]), privateKey)
      return {
        id: b64(credentialId),
        rawId: b64(credentialId),
        type: 'public-key',
        response: { clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature) },
        clientExtensionResults: {},
      }
    },
  }
}

function optionsFromOnclick(node: ReturnType<typeof nodeNamed>): { challenge: string } {
  const onclick = String((node?.attributes as { onclick?: string }).onclick)
  return JSON.parse(onclick.slice(onclick.indexOf('(') + 1, onclick.lastIndexOf(')')))
}

describe('WebAuthn as a second factor', () => {
  it('registers a key in settings and completes the aal2 login with it', async () => {
    const authenticator = softwareAuthenticator()
    const browser = kratos.browser()
    expect((await passwordLogin(browser, 'key@example.com', PASSWORD)).status).toBe(200)
    const { data: settings } = await browser.api.createBrowserSettingsFlow()
    expect(nodeNamed(settings, 'webauthn_script')?.attributes).toMatchObject({ src: `${kratos.base}/.well-known/ory/webauthn.js` })
    const registration = optionsFromOnclick(nodeNamed(settings, 'webauthn_register_trigger'))
    const { data: saved } = await browser.api.updateSettingsFlow({
      flow: settings.id,
      updateSettingsFlowBody: {
        method: 'webauthn',
        csrf_token: csrfOf(settings),
        webauthn_register: JSON.stringify(authenticator.register(registration.challenge)),
        webauthn_register_displayname: 'Desk key',
      },
    })
    expect(saved.state).toBe('success')
    expect(nodeNamed(saved, 'webauthn_remove')?.meta.label?.text).toBe('Remove security key "Desk key"')

    const { data: logout } = await browser.api.createBrowserLogoutFlow()
    await browser.api.updateLogoutFlow({ token: logout.logout_token })
    expect((await passwordLogin(browser, 'key@example.com', PASSWORD)).status).toBe(422)
    const { data: flow } = await browser.api.createBrowserLoginFlow({ aal: 'aal2' })
    const login = optionsFromOnclick(nodeNamed(flow, 'webauthn_login_trigger'))
    const forged = { ...authenticator.assert(login.challenge) }
    forged.response = { ...forged.response, signature: b64(randomBytes(70)) }
    const bad = await browser.api
      .updateLoginFlow({ flow: flow.id, updateLoginFlowBody: { method: 'webauthn', identifier: 'key@example.com', csrf_token: csrfOf(flow), webauthn_login: JSON.stringify(forged) } })
      .catch((e) => e.response)
    expect(bad.status).toBe(400)

    const { data: retry } = await browser.api.createBrowserLoginFlow({ aal: 'aal2' })
    const challenge = optionsFromOnclick(nodeNamed(retry, 'webauthn_login_trigger')).challenge
    const { data, status } = await browser.api.updateLoginFlow({
      flow: retry.id,
      updateLoginFlowBody: { method: 'webauthn', identifier: 'key@example.com', csrf_token: csrfOf(retry), webauthn_login: JSON.stringify(authenticator.assert(challenge)) },
    })
    expect(status).toBe(200)
    expect(data.session.authenticator_assurance_level).toBe('aal2')
    expect(data.session.authentication_methods?.map((m) => m.method)).toEqual(['password', 'webauthn'])
  })
})
