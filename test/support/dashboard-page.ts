import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { expect } from 'vitest'
import { type PixelStats, pixelStats } from './browser.ts'

// Dashboard steps the browser tests share (browser.ts stays free of vitest: the render bench uses it).

/** A fresh browser profile at `width`, signed in to the dashboard at `base`, on the keys screen. */
export async function signInToDashboard(
  browser: Browser,
  base: string,
  login: { email: string; password: string },
  opts: { width?: number; clipboard?: boolean; pageErrors?: string[] } = {},
): Promise<Page> {
  const width = opts.width ?? 1280
  const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 } })
  if (opts.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
  const page = await context.newPage()
  page.on('pageerror', (e) => opts.pageErrors?.push(e.message))
  await page.goto(`${base}/app`)
  await page.getByLabel('Email').fill(login.email)
  await page.getByLabel('Password').fill(login.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByTestId('keys-table').waitFor()
  return page
}

/** A screenshot saved as `<dir>/<name>.png` that shows a drawn page: full width, many colours, no single one dominating. */
export async function checkedScreenshot(page: Page, dir: string, name: string): Promise<PixelStats> {
  const stats = pixelStats(await page.screenshot({ path: join(dir, `${name}.png`) }))
  expect(stats.width).toBe(page.viewportSize()?.width)
  expect(stats.colours).toBeGreaterThan(40)
  expect(stats.dominantShare).toBeLessThan(0.95)
  return stats
}
