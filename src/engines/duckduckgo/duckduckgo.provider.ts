import type { Provider } from '../provider.types.ts'
import { detectDuckDuckGoBlock } from './duckduckgo.block.ts'
import { duckDuckGoDjsRoute, duckDuckGoHtmlRoute, duckDuckGoLiteRoute } from './duckduckgo.search.ts'
import { duckDuckGoAutocomplete } from './duckduckgo-autocomplete.ts'

/**
 * DuckDuckGo: web search over three routes, tried in order inside one request: `html` (the no-JS
 * html endpoint), `lite` (the lite endpoint), `djs` (the JS app's shell and its d.js script, which
 * answers when the no-JS endpoints show their challenge); and autocomplete. `time` maps to `df`
 * (hour is sent as the past day, the narrowest DuckDuckGo has), `safe` to `kp`; the country and
 * language pick the `kl` region. Every route takes page, time and safe.
 */
export const duckduckgoProvider: Provider<'duckduckgo'> = {
  name: 'duckduckgo',
  capabilities: {
    verticals: ['search', 'autocomplete'],
    params: ['page', 'time', 'safe'],
    siteOperator: true,
  },
  search: duckDuckGoHtmlRoute,
  fallbackRoutes: [duckDuckGoLiteRoute, duckDuckGoDjsRoute],
  verticals: { autocomplete: duckDuckGoAutocomplete },
  detectBlock: detectDuckDuckGoBlock,
}
