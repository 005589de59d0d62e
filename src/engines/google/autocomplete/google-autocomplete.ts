/** The /v1/autocomplete vertical on Google's suggest endpoint. */

import type { AutocompleteSuggestion } from '../../engine.types.ts'
import { oneFetchVertical } from '../../fetch-route.ts'
import { detectAutocompleteBlock } from './google-autocomplete.block.ts'
import { parseGoogleAutocomplete } from './google-autocomplete.parse.ts'
import { buildGoogleAutocompleteRequest } from './google-autocomplete.request.ts'

export const googleAutocomplete = oneFetchVertical<AutocompleteSuggestion>(buildGoogleAutocompleteRequest, detectAutocompleteBlock, (body) =>
  parseGoogleAutocomplete(body),
)
