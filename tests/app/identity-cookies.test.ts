import { describe, expect, it } from 'vitest'
import { mergeCookies, readSetCookie, setCookieLines } from '#app/lib/identity.server.ts'

/**
 * The cookies the identity service sets during one console request (logout: the CSRF cookie of
 * the logout flow must reach the second call). Expires dates carry a comma, which is exactly
 * where splitting Set-Cookie text by hand goes wrong.
 */

const FUTURE = 'Wed, 21 Oct 2099 07:28:00 GMT'
const PAST = 'Thu, 01 Jan 1970 00:00:00 GMT'

describe('setCookieLines', () => {
  it('keeps each line of an axios-style array whole, commas in Expires included', () => {
    const lines = [`csrf_token_abc=tok1; Path=/; Expires=${FUTURE}; HttpOnly; SameSite=Lax`, `ory_kratos_session=s1; Path=/; Expires=${FUTURE}`]
    expect(setCookieLines({ 'set-cookie': lines })).toEqual(lines)
  })

  it('reads a fetch Headers object with getSetCookie', () => {
    const headers = new Headers()
    headers.append('set-cookie', `a=1; Expires=${FUTURE}`)
    headers.append('set-cookie', 'b=2; Path=/')
    expect(setCookieLines(headers)).toEqual([`a=1; Expires=${FUTURE}`, 'b=2; Path=/'])
  })

  it('takes a single string as one cookie and ignores anything else', () => {
    expect(setCookieLines({ 'set-cookie': `a=1; Expires=${FUTURE}` })).toEqual([`a=1; Expires=${FUTURE}`])
    expect(setCookieLines({})).toEqual([])
    expect(setCookieLines(null)).toEqual([])
    expect(setCookieLines({ 'set-cookie': [42, ''] })).toEqual([])
  })
})

describe('readSetCookie', () => {
  it('reads name and value up to the first semicolon and keeps a comma-bearing Expires whole', () => {
    expect(readSetCookie(`csrf=a,b=c; Path=/; Expires=${FUTURE}; HttpOnly`)).toEqual({ name: 'csrf', value: 'a,b=c', isRemoval: false })
  })

  it('treats an Expires in the past, Max-Age 0 and an empty value as removal', () => {
    expect(readSetCookie(`s=gone; Path=/; Expires=${PAST}`)?.isRemoval).toBe(true)
    expect(readSetCookie('s=gone; Path=/; Max-Age=0')?.isRemoval).toBe(true)
    expect(readSetCookie('s=; Path=/')?.isRemoval).toBe(true)
  })

  it('lets Max-Age win over Expires (RFC 6265 §5.3)', () => {
    expect(readSetCookie(`s=kept; Expires=${PAST}; Max-Age=60`)?.isRemoval).toBe(false)
    expect(readSetCookie(`s=gone; Expires=${FUTURE}; max-age=0`)?.isRemoval).toBe(true)
  })

  it('refuses a line without a name', () => {
    expect(readSetCookie('=value; Path=/')).toBeNull()
    expect(readSetCookie('no-equals-sign')).toBeNull()
  })
})

describe('mergeCookies', () => {
  it('applies set, replaced and expired cookies to the browser jar', () => {
    const jar = 'theme=dark; csrf_token_abc=old; ory_kratos_session=s0'
    const merged = mergeCookies(jar, [
      `csrf_token_abc=new; Path=/; Expires=${FUTURE}; HttpOnly; SameSite=Lax`,
      `ory_kratos_session=; Path=/; Expires=${PAST}; HttpOnly`,
      `extra=1; Path=/; Expires=${FUTURE}`,
    ])
    expect(merged).toBe('theme=dark; csrf_token_abc=new; extra=1')
  })

  it('starts from nothing when the browser sent no cookies', () => {
    expect(mergeCookies(null, [`a=1; Expires=${FUTURE}`, 'b=2; Max-Age=0'])).toBe('a=1')
  })
})
