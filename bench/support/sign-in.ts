/**
 * Signs in as a browser does with an access token (POST /api/auth/login, Origin of the console)
 * and answers the session cookies as one Cookie header.
 */
export async function signInWithToken(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', origin: base },
    body: JSON.stringify({ username: 'token', password: token }),
  })
  const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!)
  if (!response.ok || cookies.length === 0) throw new Error(`sign-in answered ${response.status} with no cookie: ${await response.text()}`)
  return cookies.join('; ')
}
