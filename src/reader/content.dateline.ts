/**
 * Datelines: the "Published Nov 20, 2019 | By Jane Doe" lines templates put inside the article
 * container. Told by their text, since sites mark them up every which way (span, div, p, with or
 * without a <time>).
 */

// A dateline: an optional "Published/Updated/Posted (on)" lead, a calendar date, then at most a time,
// a zone and a short "by Name" / "| Source: X" tail. Dates as words need a day and a year so a month
// name in a sentence ("in May 2019 we ...") does not match; a tail with running lowercase words is a
// sentence that happens to start with a date, and stays.
const MONTH = String.raw`(?:jan|feb|m[aä]r|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[cz])\p{L}*\.?`
const DAY = String.raw`\d{1,2}(?:st|nd|rd|th)?\.?`
const DATE = String.raw`(?:${MONTH} ${DAY},? \d{4}|${DAY} ${MONTH},? \d{4}|\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{2,4})`
const DATELINE_HEAD = new RegExp(
  String.raw`^(?:(?:first |last )?(?:published|updated|posted|modified|created|date)\b\W*(?:on\b\W*)?)?(?:\p{L}{2,9}\.?,? )?${DATE}`,
  'iu',
)
const TAIL_FILLER = /^(?:by|on|at|am|pm|um|à|le|de|von|por)$/

/** True for a line that only says when (and by whom) the article was published. */
export function isDateline(line: string): boolean {
  if (line.length > 100) return false
  const head = DATELINE_HEAD.exec(line)
  if (!head) return false
  // "11:29 a.m." is one time of day, not two lowercase words of a sentence; "5 min read" is the
  // reading time templates print next to the date.
  const tail = line
    .slice(head[0].length)
    .replace(/\b([ap])\.\s?m\.?/gi, '$1m')
    .replace(/\b\d+\s?min(?:ute)?s?\.? read\b/gi, '')
  const words = tail.match(/[\p{L}\p{N}]+/gu) ?? []
  const lower = words.filter((w) => /^\p{Ll}/u.test(w) && !TAIL_FILLER.test(w)).length
  return words.length <= 8 && lower <= 1
}
