import { test, type Page } from './test.ts'

/** What the browser specs share: which project runs (js or no-js), waiting for hydration, screenshots. */

export const SHOTS = 'test-results/screenshots'
export const project = () => test.info().project.name
export const hasJs = () => project() === 'js'

/** With JavaScript, interact only once React owns the page (app/root.tsx sets html[data-hydrated]). */
export async function ready(page: Page): Promise<void> {
  if (hasJs()) await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' })
}

export const SCREENSHOT_SIZES = [
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const

/** `{SHOTS}/{area}-{name}-{w}x{h}-{project}.png` at each size, back at the first size after. */
export async function screenshotAtSizes(page: Page, area: string, name: string): Promise<void> {
  for (const size of SCREENSHOT_SIZES) {
    await page.setViewportSize(size)
    await page.screenshot({ path: `${SHOTS}/${area}-${name}-${size.width}x${size.height}-${project()}.png`, fullPage: false })
  }
  await page.setViewportSize(SCREENSHOT_SIZES[0])
}
