import { requireOnFirstUse } from '../paths.ts'

/**
 * undici, required at the first page fetch, upstream request or webhook delivery rather than at
 * start: loading it also loads the copy of undici inside Node (its cookie helpers look up the
 * global `Headers`), about 6 MB of heap an idle server does without (docs/performance.md). A
 * static import would not do: the bundle hoists a package's static imports to its start.
 */
export const undici = requireOnFirstUse<typeof import('undici')>('undici')
