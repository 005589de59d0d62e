import { existsSync } from 'node:fs'
import { inflateSync } from 'node:zlib'
import { type Browser, chromium } from 'playwright-core'

/**
 * Headless Chromium for the dashboard's browser tests (Debian's `chromium`; .ci/run installs it).
 * CI (CI=true) always runs them, so a missing browser fails loudly there; on a developer machine
 * without it, the suite is skipped with a warning, like PostgreSQL and Redis in servers.ts.
 */
export const CHROMIUM_PATH = process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium'

const inCi = process.env.CI === 'true' || process.env.CI === '1'

export const skipWithoutChromium = (() => {
  if (inCi || existsSync(CHROMIUM_PATH)) return false
  console.warn(`Chromium is not installed at ${CHROMIUM_PATH}: the dashboard browser tests are skipped (CI runs them; apt-get install -y chromium)`)
  return true
})()

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
}

export interface PixelStats {
  width: number
  height: number
  /** Distinct colours among the sampled pixels. */
  colours: number
  /** Share of sampled pixels that have the most common colour (1 = a blank, single-colour image). */
  dominantShare: number
}

/**
 * Decodes a PNG screenshot (8-bit RGB or RGBA, not interlaced: what Chromium writes) and measures
 * how varied its pixels are, so a test can tell a rendered page from a blank one without any
 * image library.
 */
export function pixelStats(png: Buffer): PixelStats {
  if (png.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG')
  let offset = 8
  let width = 0
  let height = 0
  let channels = 0
  const idat: Buffer[] = []
  while (offset < png.length) {
    const length = png.readUInt32BE(offset)
    const type = png.toString('latin1', offset + 4, offset + 8)
    const data = png.subarray(offset + 8, offset + 8 + length)
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
      const depth = data[8]
      const colourType = data[9]
      if (depth !== 8 || (colourType !== 2 && colourType !== 6) || data[12] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${colourType}`)
      channels = colourType === 6 ? 4 : 3
    } else if (type === 'IDAT') idat.push(data)
    else if (type === 'IEND') break
    offset += 12 + length
  }
  const raw = inflateSync(Buffer.concat(idat))
  const stride = width * channels
  const pixels = Buffer.alloc(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1))
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0
      let predictor = 0
      if (filter === 1) predictor = a
      else if (filter === 2) predictor = b
      else if (filter === 3) predictor = (a + b) >> 1
      else if (filter === 4) {
        const p = a + b - c
        const pa = Math.abs(p - a)
        const pb = Math.abs(p - b)
        const pc = Math.abs(p - c)
        predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
      }
      pixels[y * stride + x] = (line[x]! + predictor) & 0xff
    }
  }
  const counts = new Map<number, number>()
  let sampled = 0
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      const i = y * stride + x * channels
      const colour = (pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!
      counts.set(colour, (counts.get(colour) ?? 0) + 1)
      sampled++
    }
  }
  return { width, height, colours: counts.size, dominantShare: Math.max(...counts.values()) / sampled }
}
