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
    ['a delay past 5 s', '<meta http-equiv="refresh" content="6; url=/new">'],
    // Not an element of the document a browser builds.
    ['an IE conditional comment (CNN)', '<!--[if lte IE 9]><meta http-equiv="refresh" content="1;url=/2024/unsupp.html"><![endif]-->'],
    ['a plain comment', '<!-- <meta http-equiv="refresh" content="0; url=/new"> -->'],
    ['<noscript>', '<noscript><meta http-equiv="refresh" content="0; url=/no-js"></noscript>'],
    ['<template>', '<template><meta http-equiv="refresh" content="0; url=/new"></template>'],
    ['a script', '<script>var tag = \'<meta http-equiv="refresh" content="0; url=/new">\'</script>'],
    ['<title>', '<title><meta http-equiv="refresh" content="0; url=/new"></title>'],
    ['SVG', '<svg><meta http-equiv="refresh" content="0; url=/new"></svg>'],
    [
      'a first refresh that reloads slowly (the browser acts on the first)',
      '<meta http-equiv="refresh" content="60"><meta http-equiv="refresh" content="0; url=/new">',
    ],
  ])('none for %s', (_, meta) => {
    expect(metaRefreshTarget(page(meta), BASE)).toBeNull()
  })

  test.each([
    ['after a commented-out one', '<!--[if IE]><meta http-equiv="refresh" content="0; url=/ie"><![endif]--><meta http-equiv="refresh" content="0; url=/new">'],
    ['after a closed <noscript>', '<noscript><p>Enable JavaScript</p></noscript><meta http-equiv="refresh" content="2; url=/new">'],
    ['after one whose content does not parse', '<meta http-equiv="refresh" content="soon"><meta http-equiv="refresh" content="0; url=/new">'],
    ['at 5 s', '<meta http-equiv="refresh" content="5; url=/new">'],
  ])('the real one %s', (_, meta) => {
    expect(metaRefreshTarget(page(meta), BASE)).toBe('https://example.com/new')
  })

  test('in <body> too, as browsers do; and far into a long page', () => {
    const html = `<html><head><title>t</title></head><body>${'<p>filler</p>'.repeat(5000)}<meta http-equiv="refresh" content="0; url=/new"></body></html>`
    expect(metaRefreshTarget(html, BASE)).toBe('https://example.com/new')
  })
})
