import { describe, expect, test } from 'vitest'
import { metaRefreshTarget } from './meta-refresh.ts'

const page = (meta: string) => `<!doctype html><html><head><title>Moved</title>${meta}</head><body>Redirecting…</body></html>`
const BASE = 'https://example.com/old/page'

describe('metaRefreshTarget', () => {
  test.each([
    ['<meta http-equiv="refresh" content="0; url=https://example.com/new">', 'https://example.com/new'],
    ['<meta http-equiv="Refresh" content="0;URL=\'/new\'">', 'https://example.com/new'],
    ["<meta content='3; url=next.html' http-equiv='refresh'>", 'https://example.com/old/next.html'],
    ['<meta http-equiv=refresh content="0, /elsewhere?a=1&amp;b=2">', 'https://example.com/elsewhere?a=1&b=2'],
    ['<META HTTP-EQUIV="REFRESH" CONTENT="1;URL=https://other.example/x#frag">', 'https://other.example/x'],
  ])('%s', (meta, target) => {
    expect(metaRefreshTarget(page(meta), BASE)).toBe(target)
  })

  test.each([
    ['no tag', ''],
    ['a slow reload of the same content', '<meta http-equiv="refresh" content="300; url=https://example.com/new">'],
    ['a reload without a URL', '<meta http-equiv="refresh" content="0">'],
    ['the page itself', '<meta http-equiv="refresh" content="0; url=/old/page#top">'],
    ['another scheme', '<meta http-equiv="refresh" content="0; url=javascript:alert(1)">'],
    ['another meta', '<meta name="refresh" content="0; url=/new">'],
  ])('none for %s', (_, meta) => {
    expect(metaRefreshTarget(page(meta), BASE)).toBeNull()
  })
})
