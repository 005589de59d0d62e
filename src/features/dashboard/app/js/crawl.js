// One crawl: status and live progress while it runs, then its pages (URL, title, status) paged,
// each page's Markdown on click. Shown by the work screen (/work/crawls/<id>) and the playground.
import { api, credits, html, useChange, useEffect, useLoad, useState, when } from './lib.js'
import { Badge, CopyButton, ErrorNote, Loading, Modal } from './ui.js'

export const TONE = {
  queued: 'neutral',
  running: 'info',
  completed: 'ok',
  failed: 'bad',
  canceled: 'neutral',
}
export const isActive = (s) => s === 'queued' || s === 'running'

/** Calls `reload` every `ms` while `busy` is true (live progress). */
export function usePoll(busy, reload, ms) {
  useEffect(() => {
    if (!busy) return undefined
    const timer = setInterval(reload, ms)
    return () => clearInterval(timer)
  }, [busy, reload, ms])
}

export function Progress({ done, limit }) {
  const pct = limit > 0 ? Math.min(100, Math.round((done / limit) * 100)) : 0
  return html`<div class="progress" role="progressbar" aria-valuemin="0" aria-valuemax=${limit} aria-valuenow=${done}>
    <svg viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
      <rect width="100" height="6" rx="3" class="progress-track" />
      <rect width=${pct} height="6" rx="3" class="progress-fill" />
    </svg>
    <span class="small">${done} / ${limit} pages</span>
  </div>`
}

/** Rows per page of the pages table: a 1,000-page crawl stays a short list. */
export const PAGE_SIZE = 20

/** Previous / next over `total` rows; nothing when they fit on one page. */
export function Pager({ page, total, size, onPage, label }) {
  const pages = Math.max(1, Math.ceil(total / size))
  if (pages <= 1) return null
  const first = page * size + 1
  const last = Math.min(total, (page + 1) * size)
  return html`<nav class="pager" aria-label=${label}>
    <button type="button" onClick=${() => onPage(page - 1)} disabled=${page === 0}>Previous</button>
    <span class="small muted" aria-live="polite">${first}–${last} of ${total}</span>
    <button type="button" onClick=${() => onPage(page + 1)} disabled=${page >= pages - 1}>Next</button>
  </nav>`
}

/** What a page was read as: Markdown, else text or HTML (format=text|html). */
const contentOf = (p) => p.markdown ?? p.text ?? p.html ?? ''

function PageDialog({ page, onClose }) {
  const content = contentOf(page)
  return html`<${Modal} title=${page.title || page.url} onClose=${onClose} wide=${true}>
    <p class="small muted url-line">${page.url}</p>
    <div class="pane-head">
      <h3>${page.markdown != null ? 'Markdown' : 'Content'}</h3>
      <${CopyButton} text=${content} />
    </div>
    <pre class="page-content" data-testid="page-markdown">${content || '(no readable content)'}</pre>
  <//>`
}

function PagesTable({ result }) {
  const [page, setPage] = useState(0)
  const [open, setOpen] = useState(null)
  const rows = [...result.pages.map((p) => ({ ...p, ok: true })), ...result.failed.map((f) => ({ url: f.url, title: null, ok: false, error: f.error }))]
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
  if (rows.length === 0) return html`<p class="empty">No pages were read.</p>`
  return html`<div class="table-wrap">
      <table class="cards pages" data-testid="crawl-pages">
        <thead><tr><th>URL</th><th>Title</th><th>Status</th></tr></thead>
        <tbody>
          ${shown.map(
            (p) => html`<tr key=${p.url}>
              <td data-label="URL" class="wrap url">
                ${p.ok ? html`<button type="button" class="link" onClick=${() => setOpen(p)} title="Show this page's Markdown">${p.url}</button>` : p.url}
              </td>
              <td data-label="Title" class="wrap">${p.title ?? '—'}</td>
              <td data-label="Status">
                ${
                  p.ok
                    ? html`<${Badge} tone="ok">${p.status_code ?? 'read'}<//>`
                    : html`<span title=${p.error.message}><${Badge} tone="bad">${p.error.code}<//></span>`
                }
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <${Pager} page=${page} total=${rows.length} size=${PAGE_SIZE} onPage=${setPage} label="Crawl pages" />
    ${open && html`<${PageDialog} page=${open} onClose=${() => setOpen(null)} />`}`
}

/** A crawl followed live: GET {app}/api/v1/crawls/{id} every 2 s while it is queued or running. */
export function CrawlView({ id, headingLevel = 2 }) {
  const crawl = useLoad(() => api('GET', `/v1/crawls/${id}`), [id])
  const { error, change } = useChange(crawl.reload)
  const c = crawl.data
  usePoll(c != null && isActive(c.status), crawl.reload, 2000)
  const cancel = () => change('DELETE', `/v1/crawls/${id}`)
  if (!c) return crawl.error ? html`<${ErrorNote} error=${crawl.error} />` : html`<${Loading} />`
  const H = `h${headingLevel}`
  const stats = c.result?.stats
  return html`<div class="crawl" data-testid="crawl-view" data-status=${c.status}>
    <div class="crawl-head">
      <${Badge} tone=${TONE[c.status]}>${c.status}<//>
      <span class="wrap url" data-testid="crawl-url">${c.url ?? c.result?.url ?? c.id}</span>
      ${isActive(c.status) && html`<button type="button" class="danger-text" onClick=${cancel}>Cancel</button>`}
    </div>
    <${ErrorNote} error=${error || crawl.error} />
    <dl class="facts">
      <div><dt>Progress</dt><dd><${Progress} done=${c.progress.pages_done} limit=${c.progress.limit} /></dd></div>
      <div><dt>Failed</dt><dd>${c.progress.pages_failed}</dd></div>
      <div><dt>Discovered</dt><dd>${c.progress.pages_discovered}</dd></div>
      <div><dt>Credits</dt><dd>${credits(c.credits_used)} of ${credits(c.credits_reserved)}</dd></div>
      <div><dt>Created</dt><dd>${when(c.created_at)}</dd></div>
      ${c.completed_at && html`<div><dt>Ended</dt><dd>${when(c.completed_at)}</dd></div>`}
      ${stats?.seconds != null && html`<div><dt>Took</dt><dd>${stats.seconds} s</dd></div>`}
    </dl>
    ${c.error && html`<p class="error" role="alert">${c.error.message}</p>`}
    <${H} class="pages-title">Pages<//>
    ${
      c.result
        ? html`<${PagesTable} result=${c.result} />`
        : html`<p class="empty">${isActive(c.status) ? 'The pages are listed here when the crawl ends.' : 'This crawl has no result.'}</p>`
    }
  </div>`
}
