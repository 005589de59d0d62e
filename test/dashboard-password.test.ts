import { randomUUID } from 'node:crypto'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { launchChromium, skipWithoutChromium } from './support/browser.ts'
import { startTrawl, type Trawl } from './support/start-trawl.ts'

/** The dashboard's password dialog in headless Chromium: a wrong current password, then a change. */

const TIMEOUT = 60_000
const UI_WAIT = { timeout: 10_000 }
let trawl: Trawl
let browser: Browser

describe.skipIf(skipWithoutChromium)('change password in the dashboard app', () => {
  beforeAll(async () => {
    trawl = await startTrawl()
    browser = await launchChromium()
  }, TIMEOUT)
  afterAll(async () => {
    await browser?.close()
    await trawl?.close()
  })

  test(
    'the dialog refuses a wrong current password, then changes it and stays signed in',
    async () => {
      const email = `pw-${randomUUID()}@example.test`
      await trawl.account({ email, password: 'old password 1' })
      const page = await (await browser.newContext()).newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(e.message))
      await page.goto(`${trawl.base}/app`)
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('old password 1')
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByTestId('keys-table').waitFor()

      await page.getByRole('button', { name: 'Password', exact: true }).click()
      const dialog = page.getByRole('dialog', { name: 'Change password' })
      await dialog.getByLabel('Current password').fill('not the password')
      await dialog.getByLabel('New password').fill('new password 2')
      await dialog.getByRole('button', { name: 'Change password' }).click()
      await expect.poll(() => dialog.getByRole('alert').textContent(), UI_WAIT).toContain('current password is wrong')

      await dialog.getByLabel('Current password').fill('old password 1')
      await dialog.getByRole('button', { name: 'Change password' }).click()
      await page.getByRole('dialog', { name: 'Password changed' }).waitFor(UI_WAIT)
      await page.getByRole('button', { name: 'Done' }).click()
      // Still signed in: the keys screen reloads.
      await page.reload()
      await page.getByTestId('keys-table').waitFor(UI_WAIT)
      const login = (password: string) =>
        fetch(`${trawl.base}/app/api/v1/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) })
      expect((await login('old password 1')).status).toBe(401)
      expect((await login('new password 2')).status).toBe(200)
      expect(errors).toEqual([])
    },
    TIMEOUT,
  )
})
