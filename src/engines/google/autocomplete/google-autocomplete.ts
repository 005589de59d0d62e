/** The /v1/autocomplete vertical on Google's suggest endpoint. */

import type { AutocompleteSuggestion } from '../../engine.types.ts'
import type { EngineVertical } from '../../provider.types.ts'
import { detectAutocompleteBlock } from './google-autocomplete.block.ts'
import { parseGoogleAutocomplete } from './google-autocomplete.parse.ts'
import { buildGoogleAutocompleteRequest } from './google-autocomplete.request.ts'

export const googleAutocomplete: EngineVertical<AutocompleteSuggestion> = {
  async run(req, fetch) {
    const { url, headers } = buildGoogleAutocompleteRequest(req)
    const { body } = await fetch(url, headers, (r) => detectAutocompleteBlock(r))
    return parseGoogleAutocomplete(body)
  },
}
