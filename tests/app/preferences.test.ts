import { parseWithZod } from '@conform-to/zod'
import { describe, expect, it } from 'vitest'
import { formatDate, formatDateTime, formatUtcOffset, timeZoneOffsetMinutes } from '#app/lib/format.ts'
import { parseStoredPreferences, PreferencesFormSchema } from '#app/lib/preferences-form.ts'
import { DEFAULT_PREFERENCES, listTimeZonesByOffset, resolvePreferences } from '#app/lib/preferences.ts'
import { getPreferences, serializePreferences } from '#app/lib/preferences.server.ts'
import { backendVersionOf } from '#app/lib/about.server.ts'
import { formatVersionLine } from '#app/lib/version.ts'
import { action } from '#app/routes/resources.preferences.ts'

const NOW = new Date('2026-08-21T12:00:00Z')

function form(fields: Record<string, string>): FormData {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.set(name, value)
  return data
}

describe('dates in a time zone', () => {
  it('formats each style on the chosen zone’s clock, UTC by default', () => {
    expect(formatDateTime('2026-08-21T09:01:02.003Z', 'timestamp', NOW)).toBe('2026-08-21 09:01:02.003')
    expect(formatDateTime('2026-08-21T09:01:02.003Z', 'timestamp', NOW, 'Asia/Tokyo')).toBe('2026-08-21 18:01:02.003')
    expect(formatDateTime('2026-08-21T23:30:00Z', 'full', NOW, 'Asia/Kolkata')).toBe('Aug 22 2026 05:00:00')
    expect(formatDateTime('2026-01-10T00:00:00Z', 'timestamp', NOW, 'America/New_York')).toBe('2026-01-09 19:00:00.000')
    // "Today" is the zone's today: 23:30 UTC on the 20th is already the 21st in Tokyo.
    expect(formatDateTime('2026-08-20T23:30:00Z', 'medium', NOW, 'Asia/Tokyo')).toBe('08:30:00')
    expect(formatDateTime('2026-08-20T23:30:00Z', 'medium', NOW, 'UTC')).toBe('Thu 23:30:00')
    expect(formatDateTime('2026-08-21T11:55:00Z', 'short', NOW, 'Asia/Tokyo')).toBe('5m ago')
    expect(formatDateTime('0001-01-01T00:00:00Z', 'timestamp', NOW, 'Asia/Tokyo')).toBe('')
  })

  it('treats an unknown zone as UTC rather than failing the render', () => {
    expect(formatDateTime('2026-08-21T09:01:02Z', 'full', NOW, 'Mars/Olympus')).toBe('Aug 21 2026 09:01:02')
  })

  it('measures and names UTC offsets, daylight saving included', () => {
    expect(timeZoneOffsetMinutes('Europe/Berlin', new Date('2026-01-15T12:00:00Z'))).toBe(60)
    expect(timeZoneOffsetMinutes('Europe/Berlin', new Date('2026-07-15T12:00:00Z'))).toBe(120)
    expect(timeZoneOffsetMinutes('Asia/Kolkata', NOW)).toBe(330)
    expect(formatUtcOffset(330)).toBe('UTC+05:30')
    expect(formatUtcOffset(-180)).toBe('UTC-03:00')
    expect(formatUtcOffset(0)).toBe('UTC')
  })

  it('lists every zone sorted by offset, then name', () => {
    const zones = listTimeZonesByOffset(NOW)
    expect(zones.length).toBeGreaterThan(300)
    expect(zones.map((zone) => zone.name)).toContain('UTC')
    for (let index = 1; index < zones.length; index++) {
      const [before, after] = [zones[index - 1]!, zones[index]!]
      expect(before.offsetMinutes < after.offsetMinutes || (before.offsetMinutes === after.offsetMinutes && before.name.localeCompare(after.name) <= 0)).toBe(true)
    }
  })
})

describe('stored preferences', () => {
  it('falls back to the spec defaults field by field', () => {
    expect(parseStoredPreferences(null)).toEqual(DEFAULT_PREFERENCES)
    expect(parseStoredPreferences('not json')).toEqual(DEFAULT_PREFERENCES)
    expect(parseStoredPreferences('"a string"')).toEqual(DEFAULT_PREFERENCES)
    expect(parseStoredPreferences(JSON.stringify({ dateTimeFormat: 'full', cardWidth: 9999, timeZone: 'Nowhere/Else', showDeletedConfigs: true }))).toEqual({
      ...DEFAULT_PREFERENCES,
      dateTimeFormat: 'full',
      showDeletedConfigs: true,
    })
    expect(DEFAULT_PREFERENCES).toMatchObject({ dateTimeFormat: 'timestamp', timeZone: 'Browser', cardWidth: 554, showDeletedConfigs: false })
  })

  it("resolves 'Browser' to the zone the browser reported, UTC until then", () => {
    expect(resolvePreferences(DEFAULT_PREFERENCES, null).dates).toEqual({ format: 'timestamp', timeZone: 'UTC' })
    expect(resolvePreferences(DEFAULT_PREFERENCES, 'Asia/Tokyo').dates.timeZone).toBe('Asia/Tokyo')
    expect(resolvePreferences(DEFAULT_PREFERENCES, 'bogus').browserTimeZone).toBeNull()
    // A browser on UTC under another name changes nothing (and triggers no re-render).
    expect(resolvePreferences(DEFAULT_PREFERENCES, 'Etc/UTC').dates.timeZone).toBe('UTC')
    expect(resolvePreferences({ ...DEFAULT_PREFERENCES, timeZone: 'Europe/Berlin' }, 'Asia/Tokyo').dates.timeZone).toBe('Europe/Berlin')
  })

  it('round-trips through the cookie and reads the browser zone cookie', () => {
    const request = new Request('http://localhost/')
    const setCookie = serializePreferences(request, { ...DEFAULT_PREFERENCES, dateTimeFormat: 'medium', timeZone: 'Europe/Berlin', cardWidth: 300 })
    expect(setCookie).toMatch(/^lookout_preferences=.*; Path=\/; HttpOnly; SameSite=Lax; Max-Age=31536000$/)
    const cookie = `${setCookie.split(';')[0]}; lookout_browser_tz=${encodeURIComponent('America/Sao_Paulo')}`
    const read = getPreferences(new Request('http://localhost/', { headers: { cookie } }))
    expect(read).toMatchObject({ dateTimeFormat: 'medium', timeZone: 'Europe/Berlin', cardWidth: 300, browserTimeZone: 'America/Sao_Paulo' })
    expect(formatDate('2026-08-21T09:00:00Z', read.dates, NOW)).toBe('11:00:00')
  })
})

describe('the preferences form', () => {
  it('accepts the panel’s choices, unticked boxes as false', () => {
    const submission = parseWithZod(form({ cardWidth: '300', dateTimeFormat: 'short', timeZone: 'Asia/Tokyo', showDeletedConfigs: 'on' }), { schema: PreferencesFormSchema })
    expect(submission.status).toBe('success')
    expect(submission.status === 'success' && submission.value).toMatchObject({
      cardWidth: 300,
      dateTimeFormat: 'short',
      timeZone: 'Asia/Tokyo',
      showDeletedConfigs: true,
      showHiddenComponents: false,
    })
  })

  it('refuses values no control offers, with a message per field', () => {
    const submission = parseWithZod(form({ cardWidth: '251', dateTimeFormat: 'weekly', timeZone: 'Nowhere/Else' }), { schema: PreferencesFormSchema })
    expect(submission.status).toBe('error')
    const errors = submission.reply().error ?? {}
    expect(errors.cardWidth).toEqual(['Card width goes in steps of 2'])
    expect(errors.dateTimeFormat).toEqual(['Choose short, medium, full or timestamp'])
    expect(errors.timeZone).toEqual(['Unknown timezone'])
    const tooWide = parseWithZod(form({ cardWidth: '800', dateTimeFormat: 'full', timeZone: 'Browser' }), { schema: PreferencesFormSchema })
    expect(tooWide.reply().error?.cardWidth).toEqual(['Card width is at most 768'])
  })
})

describe('the version line', () => {
  it('reads the version the platform console shows from each /about shape', () => {
    expect(backendVersionOf({ appVersion: 'v0.0.1234', chartVersion: '0.1.500' })).toBe('0.1.500')
    expect(backendVersionOf({ appVersion: 'v0.0.1234', chartVersion: '' })).toBe('v0.0.1234')
    expect(backendVersionOf({ Timestamp: '2026-01-01', Version: 'v1.2.3' })).toBe('v1.2.3')
    expect(backendVersionOf({})).toBeNull()
    expect(backendVersionOf('oops')).toBeNull()
    expect(backendVersionOf({ appVersion: 42 })).toBeNull()
  })

  it("states Lookout's version with the compatible console version, and NA without a backend", () => {
    expect(formatVersionLine('0.1.0', 'v0.0.1234')).toBe('Frontend: 0.1.0 (compatible with 1.4.48), Backend: v0.0.1234')
    expect(formatVersionLine('0.1.0', null)).toBe('Frontend: 0.1.0 (compatible with 1.4.48), Backend: NA')
  })
})

describe('the preferences action', () => {
  const post = (fields: Record<string, string>) =>
    action({ request: new Request('http://localhost/resources/preferences', { method: 'POST', body: new URLSearchParams(fields) }), context: {} as never, params: {} })

  it('stores the choices and sends a plain form post back where it came from', async () => {
    const response = (await post({ cardWidth: '300', dateTimeFormat: 'full', timeZone: 'Asia/Tokyo', redirectTo: '/incidents?status=open' })) as Response
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe('/incidents?status=open')
    const cookie = response.headers.get('set-cookie')!.split(';')[0]!
    expect(getPreferences(new Request('http://localhost/', { headers: { cookie } }))).toMatchObject({ cardWidth: 300, dateTimeFormat: 'full', timeZone: 'Asia/Tokyo' })
  })

  it('never redirects off-site', async () => {
    const response = (await post({ cardWidth: '300', dateTimeFormat: 'full', timeZone: 'UTC', redirectTo: '//evil.example' })) as Response
    expect(response.headers.get('location')).toBe('/')
  })

  it('answers a hand-made request with a value no control offers with 400 and the field errors, storing nothing', async () => {
    const response = (await post({ cardWidth: '1000', dateTimeFormat: 'weekly', timeZone: 'Nowhere/Else' })) as Response
    expect(response.status).toBe(400)
    const body = (await response.json()) as { error: Record<string, string[]> }
    expect(body.error).toMatchObject({ cardWidth: ['Card width is at most 768'], dateTimeFormat: ['Choose short, medium, full or timestamp'], timeZone: ['Unknown timezone'] })
    expect(response.headers.get('set-cookie')).toBeNull()
  })
})
