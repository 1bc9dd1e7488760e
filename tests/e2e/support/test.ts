import { test as base, expect } from '@playwright/test'

export { expect }
export type { APIRequestContext, Locator, Page } from '@playwright/test'

/**
 * Playwright's `test`, failing any test during which the page logs a console error or throws an
 * uncaught error (a hydration mismatch, React's #421, a failed fetch …). Every spec imports `test`
 * from here rather than from '@playwright/test'.
 *
 * Chromium also logs "Failed to load resource" for every response of status 400 or more. A 4xx
 * answer to a page or its `.data` request is the console speaking (a form's 400 with its errors, a
 * 403 or 404 page) and passes; a 4xx from the API or a static file, or any 5xx, fails the test.
 *
 * A test that deliberately provokes an error the browser logs (a 4xx resource load, say) lists the
 * expected text with `test.use({ allowedConsoleErrors: [/…/] })`.
 */
export const test = base.extend<{ allowedConsoleErrors: RegExp[]; failOnConsoleErrors: void }>({
  allowedConsoleErrors: [[], { option: true }],
  failOnConsoleErrors: [
    async ({ page, allowedConsoleErrors }, use, testInfo) => {
      const problems: string[] = []
      const allowed = (text: string) => allowedConsoleErrors.some((pattern) => pattern.test(text))
      page.on('console', (message) => {
        if (message.type() !== 'error') return
        const location = message.location()
        const text = `${message.text()}${location.url ? ` (${location.url}:${location.lineNumber})` : ''}`
        if (isDeliberatePageStatus(message.text(), location.url)) return
        if (!allowed(text)) problems.push(`console.error: ${text}`)
      })
      page.on('pageerror', (error) => {
        const text = `${error.name}: ${error.message}`
        if (!allowed(text)) problems.push(`uncaught ${text}`)
      })
      await use()
      if (problems.length > 0 && testInfo.status === testInfo.expectedStatus) {
        throw new Error(`The page reported ${problems.length} error(s) during the test:\n${problems.join('\n')}`)
      }
    },
    { auto: true },
  ],
})

function isDeliberatePageStatus(text: string, url: string): boolean {
  if (!/^Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return false
  const pathname = url ? new URL(url).pathname : ''
  return !pathname.startsWith('/api/') && !pathname.startsWith('/assets/') && !/\.(ico|png|svg|js|css|woff2?)$/.test(pathname)
}
