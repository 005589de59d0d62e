import { requireOnFirstUse } from '../paths.ts'

/**
 * Where a text may be cut into pieces that o200k counts one by one, for tokens.ts.
 *
 * o200k first splits a text into chunks with a regular expression (a word with the space before
 * it, up to three digits, a run of punctuation, a run of whitespace) and then merges each chunk's
 * bytes into tokens. gpt-tokenizer's merge loop is quadratic in the length of one chunk: a page
 * holding one 1 MB word took minutes, 80,000 Chinese characters without punctuation 17 s.
 *
 * So a text is handed to the encoder in pieces. A piece ends where a chunk starts, which changes
 * nothing: the chunks, and so the tokens, are the same as for the whole text. Those places are
 * found by one pass over the characters (a letter or digit followed by whitespace or punctuation:
 * a chunk always starts there); where no such place shows for MAX_PIECE characters, o200k's own
 * expression finds the chunks, and only a chunk longer than MAX_PIECE (a run no language writes)
 * is cut inside, every MAX_PIECE characters. Such a cut can change the tokens next to it: measured
 * on 8,192-character runs (random letters, random punctuation, Thai, random CJK, one letter, one
 * CJK character, spaces, newlines, '=' and emoji repeated), the count came out at most 0.17 % high
 * and never low (docs/operations.md).
 */

/** The longest chunk handed to the encoder whole (characters); longer ones are cut. */
export const MAX_PIECE = 256
/** Pieces are gathered up to about this many characters: the unit tokens.ts counts between its checks. */
export const SEGMENT = 4096

const constants = requireOnFirstUse<typeof import('gpt-tokenizer/encodingParams/constants')>('gpt-tokenizer/encodingParams/constants')
let chunkRegex: RegExp | undefined
/** o200k's chunk expression, sticky: matched from a position known to start a chunk. */
const chunks = () => {
  chunkRegex ??= new RegExp(constants().O200K_TOKEN_SPLIT_REGEX.source, 'uy')
  return chunkRegex
}

const LETTER = 1
const DIGIT = 2
const APOSTROPHE = 3
/** ASCII by class; 0 is whitespace or punctuation other than the apostrophe. */
const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) ASCII[c] = LETTER
  else if (c >= 48 && c <= 57) ASCII[c] = DIGIT
  else if (c === 39) ASCII[c] = APOSTROPHE
}

/**
 * Letters for certain (\p{L}: never a mark, a digit or unassigned): ASCII, Latin-1 and Latin
 * Extended, Greek lower case, Cyrillic, Hebrew, Arabic, kana, CJK ideographs, Hangul syllables.
 */
function isLetter(c: number): boolean {
  if (c < 128) return ASCII[c] === LETTER
  return (
    (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7) ||
    (c >= 0x3ac && c <= 0x3ce) ||
    (c >= 0x400 && c <= 0x481) ||
    (c >= 0x48a && c <= 0x52f) ||
    (c >= 0x5d0 && c <= 0x5ea) ||
    (c >= 0x621 && c <= 0x64a) ||
    (c >= 0x3041 && c <= 0x3096) ||
    (c >= 0x30a1 && c <= 0x30fa) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7a3)
  )
}

/**
 * Characters beyond ASCII that are whitespace or punctuation for certain (never a letter, mark or
 * digit, so no word chunk runs on through them): the no-break and other Unicode spaces, general
 * punctuation (dashes, curly quotes, bullets, ellipsis), CJK and full-width punctuation.
 */
function isSeparator(c: number): boolean {
  return (
    c === 0xa0 ||
    c === 0xab ||
    c === 0xbb ||
    (c >= 0x2000 && c <= 0x200a) ||
    (c >= 0x2010 && c <= 0x2029) ||
    (c >= 0x202f && c <= 0x205f) ||
    (c >= 0x3000 && c <= 0x3003) ||
    (c >= 0x3008 && c <= 0x3011) ||
    (c >= 0x3014 && c <= 0x301f) ||
    (c >= 0xff01 && c <= 0xff0f) ||
    (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) ||
    (c >= 0xff5b && c <= 0xff65)
  )
}

/**
 * True when a chunk of o200k certainly starts at `i`: the character before is a letter or a digit
 * (in a word or number chunk, which never takes in whitespace or punctuation, nor a digit after a
 * letter or a letter after a digit) and this one cannot continue it.
 */
export function startsChunk(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  const p = text.charCodeAt(i - 1)
  if (c < 128) {
    const kind = ASCII[c]
    // "don't", "it's": the apostrophe belongs to the word before it.
    if (kind === LETTER || kind === APOSTROPHE) return p < 128 && ASCII[p] === DIGIT
    if (kind === DIGIT) return isLetter(p)
    return isLetter(p) || (p < 128 && ASCII[p] === DIGIT)
  }
  return isSeparator(c) && (isLetter(p) || (p >= 48 && p <= 57))
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff

/**
 * Consecutive [start, end) ranges covering `text`, each to be encoded on its own: ranges end where
 * a chunk starts (about SEGMENT characters long; the last one shorter), except inside a chunk
 * longer than MAX_PIECE, which comes as pieces of MAX_PIECE characters (never splitting a
 * surrogate pair), marked `cut`. One pass over the characters. o200k's expression runs only where no chunk start
 * shows for MAX_PIECE characters, once per chunk, on at most MAX_PIECE + 1 characters: a chunk that
 * fills them is a long one, cut there, without reading on to its end (a run of megabytes costs
 * no more per character than a short one). A chunk shorter than that comes out of the expression
 * as it does from the whole text, since the expression never looked past its next character.
 */
export function* pieces(text: string): Generator<[start: number, end: number, cut?: true], void, undefined> {
  const n = text.length
  let start = 0 // the range being gathered starts here
  let known = 0 // the last position known to start a chunk (or where a long one was cut)
  for (let i = 1; i < n; i++) {
    if (startsChunk(text, i)) {
      known = i
      if (i - start >= SEGMENT) {
        yield [start, i]
        start = i
      }
      continue
    }
    if (i - known < MAX_PIECE) continue
    // MAX_PIECE characters and no chunk start seen: ask o200k's own expression from the last one.
    const re = chunks()
    let at = known
    while (at <= i && at < n) {
      if (at - start >= SEGMENT) {
        yield [start, at]
        start = at
      }
      re.lastIndex = 0
      const length = re.exec(text.slice(at, at + MAX_PIECE + 1)) ? re.lastIndex : 1
      if (length <= MAX_PIECE) {
        at += length
        continue
      }
      if (at > start) yield [start, at]
      let cut = at + MAX_PIECE
      if (isHighSurrogate(text.charCodeAt(cut - 1))) cut++
      yield [at, cut, true]
      start = cut
      at = cut
    }
    known = at
    i = at // the loop's i++ moves past `at`, which is known to start a chunk (or is a cut)
  }
  if (start < n) yield [start, n]
}
