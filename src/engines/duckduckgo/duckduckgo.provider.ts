import type { Provider } from '../engine.ts'
import { detectDuckDuckGoBlock } from './duckduckgo.block.ts'
import { duckDuckGoSearch } from './duckduckgo.search.ts'
import { duckDuckGoAutocomplete } from './duckduckgo-autocomplete.ts'

/**
 * DuckDuckGo: web search from the no-JS html endpoint (lite as the fallback layout) and
 * autocomplete. `time` maps to `df` (hour is sent as the past day, the narrowest DuckDuckGo has),
 * `safe` to `kp`; the country and language pick the `kl` region.
 */
export const duckduckgoProvider: Provider = {
  name: 'duckduckgo',
  capabilities: {
    verticals: ['search', 'autocomplete'],
    params: ['page', 'time', 'safe'],
    siteOperator: true,
  },
  search: duckDuckGoSearch,
  verticals: { autocomplete: duckDuckGoAutocomplete },
  detectBlock: detectDuckDuckGoBlock,
}
