import { ApiError } from '../errors.ts'
import { requireOnFirstUse } from '../paths.ts'

/**
 * What a new password must be (docs/dashboard.md "Passwords"): printable (no control characters,
 * NUL included), not blank, and not easy to guess by zxcvbn-ts's estimate (score 2 of 4 at least:
 * no common passwords, keyboard walks, repeats or dates, nor the account's own email), with its
 * common dictionaries. The estimator is loaded at the first password set (2 MB of dictionaries an
 * API-only server never needs).
 */

interface Zxcvbn {
  check(password: string, userInputs?: string[]): { score: number; feedback: { warning: string | null } }
}
type Core = { ZxcvbnFactory: new (options: object) => Zxcvbn }
type Common = { dictionary: Record<string, unknown>; adjacencyGraphs: object }

const core = requireOnFirstUse<Core>('@zxcvbn-ts/core')
const common = requireOnFirstUse<Common>('@zxcvbn-ts/language-common')
let estimator: Zxcvbn | null = null

const MIN_SCORE = 2
/** Why, in words, for the estimator's warning keys. */
const WHY: Record<string, string> = {
  topTen: 'it is one of the most used passwords',
  topHundred: 'it is one of the most used passwords',
  common: 'it is a commonly used password',
  similarToCommon: 'it is close to a commonly used password',
  straightRow: 'it is a row of keys',
  keyPattern: 'it is a keyboard pattern',
  simpleRepeat: 'it repeats the same characters',
  extendedRepeat: 'it repeats a pattern',
  sequences: 'it is a sequence',
  recentYears: 'it is a recent year',
  dates: 'it is a date',
  userInputs: 'it contains your email address',
}

/** Throws 400 invalid_request saying why `password` may not be used; `context` is what it must not contain (the email). */
export function checkNewPassword(password: string, context: string[] = []): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(password)) throw new ApiError('invalid_request', 'password may not contain control characters')
  if (password.trim() === '') throw new ApiError('invalid_request', 'password may not be only spaces')
  estimator ??= new (core().ZxcvbnFactory)({ dictionary: { ...common().dictionary }, graphs: common().adjacencyGraphs })
  const inputs = context.flatMap((c) => [c, ...c.split(/[@.+_-]/)]).filter((c) => c.length >= 3)
  const { score, feedback } = estimator.check(password, inputs)
  if (score >= MIN_SCORE) return
  const why = (feedback.warning && WHY[feedback.warning]) ?? 'it is easy to guess'
  throw new ApiError('invalid_request', `password is too weak: ${why}; use a longer phrase of unrelated words`)
}
