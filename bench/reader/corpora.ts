import { readdirSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { decodeText } from '../../src/net/body-decode.ts'
import { FIXTURES, readFixture } from '../../test/support/fixtures.ts'

/** Loaders for the evaluation corpora in fixtures/corpora (see each SOURCES.md for the ground-truth format). */

export interface ShinglePage {
  id: string
  url: string
  html: string
  bytes: number
  gold: string
}

export interface SegmentPage {
  id: string
  url: string
  html: string
  bytes: number
  with: string[]
  without: string[]
}

const read = (rel: string) => readFixture(`corpora/${rel}`)

export function loadArticleBenchmark(): ShinglePage[] {
  const truth = JSON.parse(read('article-extraction-benchmark/ground-truth-dev.json').toString()) as Record<string, { articleBody: string; url: string }>
  return Object.keys(truth)
    .sort()
    .map((id) => {
      const raw = gunzipSync(read(`article-extraction-benchmark/html/${id}.html.gz`))
      return { id, url: truth[id]!.url, html: raw.toString('utf8'), bytes: raw.length, gold: truth[id]!.articleBody }
    })
}

export function loadTrafilaturaEval(): SegmentPage[] {
  const data = JSON.parse(read('trafilatura-eval/evaldata-dev.json').toString()) as Record<string, { file: string; with?: string[]; without?: string[] }>
  return Object.keys(data)
    .sort()
    .map((key) => {
      const d = data[key]!
      const raw = gunzipSync(read(`trafilatura-eval/html/${d.file}.gz`))
      // Keys are URLs except a few "hard::" ids; those pages get a neutral base.
      const url = /^https?:\/\//.test(key) ? key : `https://example.com/${encodeURIComponent(d.file)}`
      return { id: key, url, html: decodeText(raw, undefined, 'html').text, bytes: raw.length, with: d.with ?? [], without: d.without ?? [] }
    })
}

/** Readability's own golden outputs: gold text is the text of expected.html. */
export function loadReadabilityPages(toText: (html: string) => string): ShinglePage[] {
  const dir = 'corpora/readability-test-pages/test-pages/'
  return readdirSync(new URL(dir, FIXTURES))
    .sort()
    .map((name) => {
      const raw = readFixture(`${dir}${name}/source.html`)
      const expected = readFixture(`${dir}${name}/expected.html`).toString('utf8')
      return { id: name, url: 'http://fakehost/test/page.html', html: raw.toString('utf8'), bytes: raw.length, gold: toText(expected) }
    })
}
