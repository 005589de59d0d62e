import { ApiError } from '../../errors.ts'
import type { Provider } from '../engine.ts'
import { detectWikipediaBlock } from './wikipedia.block.ts'
import { apiErrorOf, parseWikipediaSearch } from './wikipedia.parse.ts'
import { buildWikipediaRequest } from './wikipedia.request.ts'
import { wikipediaAutocomplete } from './wikipedia-autocomplete.ts'

/**
 * Wikipedia: full-text search of the request language's wiki over the MediaWiki Action API, and
 * title autocomplete. The API has no time or safe-search filter and no `site:` operator (every
 * result is on the one wiki), so no optional parameter is taken.
 */
export const wikipediaProvider: Provider = {
  name: 'wikipedia',
  capabilities: {
    verticals: ['search', 'autocomplete'],
    params: ['page'],
    siteOperator: false,
  },
  search: {
    async run(req, fetch) {
      const { url, headers, lang } = buildWikipediaRequest(req)
      const { body } = await fetch(url, headers, detectWikipediaBlock)
      // Any other API error is a request the API refused, not a page without results.
      const error = apiErrorOf(body)
      if (error) throw new ApiError('upstream_error', `Wikipedia API error ${error.code}${error.info ? `: ${error.info}` : ''}`)
      return parseWikipediaSearch(body, { lang })
    },
  },
  verticals: { autocomplete: wikipediaAutocomplete },
  detectBlock: detectWikipediaBlock,
}
