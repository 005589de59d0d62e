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

/**
 * Words the page broke across lines inside `selector`: a card label squeezed narrower than its
 * text ("Rou/tes") and any word of the values drawn on two lines ("health/y"). A label is drawn by
 * CSS (`td::before`), which a Range cannot measure: each is swapped for a span with its computed
 * style, in the same place of the same flex row, for the check.
 */
export function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const probes: HTMLElement[] = []
    for (const td of document.querySelectorAll(`${sel} td[data-label]`)) {
      const before = getComputedStyle(td, '::before')
      if (before.content === 'none' || before.content === 'normal') continue
      const probe = document.createElement('span')
      probe.textContent = td.getAttribute('data-label')
      for (const prop of ['font', 'white-space', 'flex', 'word-break', 'overflow-wrap', 'text-align'])
        probe.style.setProperty(prop, before.getPropertyValue(prop))
      probes.push(probe)
      td.prepend(probe)
    }
    const hide = document.createElement('style')
    hide.textContent = `${sel} td[data-label]::before { content: none !important; }`
    document.head.append(hide)
    const broken: string[] = []
    for (const root of document.querySelectorAll(sel)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT)
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? ''
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange()
          range.setStart(node, m.index)
          range.setEnd(node, m.index + m[0].length)
          if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) broken.push(m[0])
        }
      }
    }
    for (const probe of probes) probe.remove()
    hide.remove()
    return broken
  }, selector)
}

/** True when the box of `over` covers any of the text drawn in `under` (a button over code, say). */
export function coversText(page: Page, over: string, under: string): Promise<boolean> {
  return page.evaluate(
    ([o, u]) => {
      const box = document.querySelector(o!)?.getBoundingClientRect()
      const target = document.querySelector(u!)
      if (!box || !target) return false
      const range = document.createRange()
      range.selectNodeContents(target)
      const visible = target.getBoundingClientRect()
      return [...range.getClientRects()].some(
        (r) =>
          r.width > 0 &&
          r.left < Math.min(box.right, visible.right) &&
          r.right > box.left &&
          r.top < box.bottom &&
          r.bottom > box.top &&
          r.top < visible.bottom,
      )
    },
    [over, under],
  )
}

/** Signed in to the dashboard as `login`: `call` sends JSON to its API with the session cookie. */
export async function dashboardSession(base: string, login: { email: string; password: string }) {
  const signedIn = await fetch(`${base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(login),
  })
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/app/api${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as Record<string, any> }
  }
  return { signedIn, call }
}

/** The dashboard's playground API as the app calls it, signed in as `login`: `run` an endpoint, or read what it `offered`. */
export async function playgroundSession(base: string, login: { email: string; password: string }) {
  const signedIn = await fetch(`${base}/app/api/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(login),
  })
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  const run = async (endpoint: string, params: unknown) => {
    const res = await fetch(`${base}/app/api/v1/playground/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ params }),
    })
    return { status: res.status, body: await res.json() }
  }
  const offered = async () => (await fetch(`${base}/app/api/v1/playground`, { headers: { cookie } })).json()
  return { run, offered }
}
