/**
 * Makes src/features/docs/favicon.ico from the dashboard's favicon.svg (one drawing for both):
 * Chromium draws the SVG at 16, 32 and 48 px, and the PNGs are packed into one ICO (PNG-in-ICO,
 * which every browser reads). Run after changing the SVG, with Chromium at /usr/bin/chromium:
 *   node bin/run-ts.mjs src/features/docs/favicon.make.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { srcFile } from '../../paths.ts'

const SIZES = [16, 32, 48]

const svg = readFileSync(srcFile('features/dashboard/app/favicon.svg'), 'utf8')
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
const pngs: Buffer[] = []
for (const size of SIZES) {
  const page = await browser.newPage({ viewport: { width: size, height: size } })
  await page.setContent(`<body style="margin:0">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body>`)
  pngs.push(await page.screenshot({ omitBackground: true, type: 'png' }))
  await page.close()
}
await browser.close()

// ICONDIR (reserved, type 1 = icon, count), one 16-byte ICONDIRENTRY per image, then the images.
const head = Buffer.alloc(6 + 16 * pngs.length)
head.writeUInt16LE(1, 2)
head.writeUInt16LE(pngs.length, 4)
let offset = head.length
pngs.forEach((png, i) => {
  const at = 6 + 16 * i
  head.writeUInt8(SIZES[i]!, at) // width
  head.writeUInt8(SIZES[i]!, at + 1) // height
  head.writeUInt16LE(1, at + 4) // colour planes
  head.writeUInt16LE(32, at + 6) // bits per pixel
  head.writeUInt32LE(png.length, at + 8)
  head.writeUInt32LE(offset, at + 12)
  offset += png.length
})
writeFileSync(srcFile('features/docs/favicon.ico'), Buffer.concat([head, ...pngs]))
