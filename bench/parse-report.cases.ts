/** What the parse report runs: each vertical's pure parser over its saved responses. */
import { parseGoogleSearch } from '../src/features/search/engines/google/google-search.parse.ts'

export interface ParseCase {
  vertical: string
  /** Under ../shared/fixtures/ (real captures), or test/fixtures/ when `local` (constructed ones); a trailing / means every file in it. */
  file: string
  local?: boolean
  fields: string[]
  parse(body: string): { results: readonly unknown[]; parse_quality: string }
}

const WEB_FIELDS = ['title', 'link', 'domain', 'displayed_link', 'snippet', 'date', 'sitelinks']
const web = (file: string): ParseCase => ({ vertical: 'search', file, fields: WEB_FIELDS, parse: (b) => parseGoogleSearch(b, { includeAds: false }) })

export const PARSE_CASES: ParseCase[] = [
  web('serp/google/web-desktop/'),
  web('serp/google/web-mobile/'),
  web('serp/google/web-nojs/'),
  web('serp/google/web-basic/'),
]
