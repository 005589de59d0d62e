import { ApiError } from '../../errors.ts'
import type { EngineRequest, FetchRoute, Provider } from '../provider.types.ts'
import { detectWikipediaBlock } from './wikipedia.block.ts'
import { apiErrorOf, parseWikipediaSearch } from './wikipedia.parse.ts'
import { buildWikipediaRequest } from './wikipedia.request.ts'
import { wikipediaAutocomplete } from './wikipedia-autocomplete.ts'

/**
 * Wikipedia: full-text search of the request language's wiki over the MediaWiki Action API, and
 * title autocomplete. The API has no time or safe-search filter and no `site:` operator (every
 * result is on the one wiki), so no optional parameter is taken.
 */
export const wikipediaProvider: Provider<'wikipedia'> = {
  name: 'wikipedia',
  capabilities: {
    verticals: ['search', 'autocomplete'],
    params: ['page'],
    siteOperator: false,
  },
  search: {
    request: (req) => ({ ...buildWikipediaRequest(req), detectBlock: detectWikipediaBlock }),
    read(body, _req, { lang }) {
      // Any other API error is a request the API refused, not a page without results.
      const error = apiErrorOf(body)
      if (error) throw new ApiError('upstream_error', `Wikipedia API error ${error.code}${error.info ? `: ${error.info}` : ''}`)
      return parseWikipediaSearch(body, { lang })
    },
  } satisfies FetchRoute<EngineRequest & { lang: string }>,
  verticals: { autocomplete: wikipediaAutocomplete },
  detectBlock: detectWikipediaBlock,
}
