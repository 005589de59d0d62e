import type { Element } from 'domhandler'
import { parseDocument } from 'htmlparser2'
import { describe, expect, test } from 'vitest'
import { findFirst } from './dom.utils.ts'
import { imageSource, isNonImage, largestSrcsetCandidate } from './image.source.ts'

const img = (html: string) => findFirst(parseDocument(html), (el) => el.name === 'img') as Element

describe('image sources', () => {
  test('srcset: the largest candidate, URLs with commas, density descriptors', () => {
    expect(largestSrcsetCandidate('/a-480.jpg 480w, /a-960.jpg 960w, /a-720.jpg 720w')).toBe('/a-960.jpg')
    expect(largestSrcsetCandidate('https://res.example/c_fill,w_400/a.jpg 400w, https://res.example/c_fill,w_800/a.jpg 800w')).toBe(
      'https://res.example/c_fill,w_800/a.jpg',
    )
    expect(largestSrcsetCandidate('/a.jpg, /a@2x.jpg 2x')).toBe('/a@2x.jpg')
    expect(largestSrcsetCandidate('data:image/gif;base64,R0lGOD 1x, /real.jpg 2x')).toBe('/real.jpg')
    expect(largestSrcsetCandidate('  ,, ')).toBeUndefined()
  })

  test('the address a browser shows: lazy loaders, placeholders, <picture>', () => {
    expect(imageSource(img('<img src="/photo.jpg" data-src="/other.jpg">'))).toBe('/photo.jpg')
    expect(imageSource(img('<img class="lazyload" src="/preview-blur.jpg" data-src="/photo.jpg">'))).toBe('/photo.jpg')
    expect(imageSource(img('<img src="data:image/gif;base64,R0lGOD" data-original="/photo.jpg">'))).toBe('/photo.jpg')
    expect(imageSource(img('<img src="/static/blank.gif" data-lazy-src="/photo.jpg">'))).toBe('/photo.jpg')
    expect(imageSource(img('<img src="/img/google-pixel.jpg">'))).toBe('/img/google-pixel.jpg')
    expect(imageSource(img('<img data-srcset="/s.jpg 300w, /l.jpg 1200w">'))).toBe('/l.jpg')
    expect(imageSource(img('<picture><source srcset="/p-1x.webp 1x, /p-2x.webp 2x"><img alt="x"></picture>'))).toBe('/p-2x.webp')
    expect(imageSource(img('<img src="data:image/png;base64,iVBOR">'))).toBeUndefined()
  })

  test('tracking pixels and emoji are no pictures; a CMS height="0" is', () => {
    expect(isNonImage(img('<img width="1" height="1">'), 'https://example.com/p.gif')).toBe(true)
    expect(isNonImage(img('<img height="0" width="0">'), 'https://example.com/p.gif')).toBe(true)
    expect(isNonImage(img('<img width="570" height="0">'), 'https://example.com/photo.jpg')).toBe(false)
    expect(isNonImage(img('<img>'), 'https://www.facebook.com/tr?id=1&ev=PageView')).toBe(true)
    expect(isNonImage(img('<img>'), 'https://sb.scorecardresearch.com/p?c1=2')).toBe(true)
    expect(isNonImage(img('<img class="emoji" alt="🚇">'), 'https://s.w.org/images/core/emoji/1f687.svg')).toBe(true)
    expect(isNonImage(img('<img>'), 'https://cdn.example.com/photo.jpg')).toBe(false)
  })
})
