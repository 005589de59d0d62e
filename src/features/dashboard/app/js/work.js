// Work: engine health, crawls (live progress), batch jobs, monitors (pause/resume, run history).
import { CrawlView, Progress, usePoll } from './crawl.js'
import { APP, api, credits, html, navigate, useChange, useLoad, useState, when } from './lib.js'
import { Badge, ErrorNote, Loading } from './ui.js'

const TONE = {
  healthy: 'ok',
  degraded: 'warn',
  drifting: 'warn',
  blocked: 'bad',
  down: 'bad',
  unavailable: 'neutral',
  'not asked': 'neutral',
  queued: 'neutral',
  running: 'info',
  completed: 'ok',
  done: 'ok',
  failed: 'bad',
  canceled: 'neutral',
  ok: 'ok',
  error: 'bad',
  paused: 'warn',
  webhook_failed: 'bad',
}
const active = (s) => s === 'queued' || s === 'running'

/** A card of one list from the API: its title and Refresh, the load's or a change's error, then the list. */
function ListCard({ name, title, list, error, children }) {
  return html`<section class="card" aria-labelledby=${`${name}-title`}>
    <div class="card-head">
      <h2 id=${`${name}-title`}>${title}</h2>
      <button type="button" class="ghost" onClick=${list.reload}>Refresh</button>
    </div>
    <${ErrorNote} error=${list.error || error} />
    ${list.loading && !list.data && html`<${Loading} />`}
    ${children}
  </section>`
}

function Engines() {
  const list = useLoad(() => api('GET', '/v1/engines'))
  return html`<${ListCard} name="engines" title="Engine health" list=${list}>
    ${
      list.data &&
      html`<div class="table-wrap">
        <table class="cards" data-testid="engines-table">
          <thead><tr><th>Provider</th><th>State</th><th>Routes</th><th>Verticals</th><th>In auto</th><th>In consensus</th><th>Since</th></tr></thead>
          <tbody>
            ${list.data.engines.map(
              (e) => html`<tr key=${e.name}>
                <td data-label="Provider"><span><strong>${e.name}</strong>${e.primary ? html` <span class="muted small">(primary)</span>` : ''}</span></td>
                <td data-label="State"><${Badge} tone=${TONE[e.state]}>${e.state}<//></td>
                <td data-label="Routes" class="wrap" data-testid="engine-routes"><span>${(e.routes ?? []).map((r) => html`<${Route} route=${r} />`)}</span></td>
                <td data-label="Verticals" class="wrap">${e.verticals.join(', ')}</td>
                <td data-label="In auto">${e.auto ? 'yes' : 'no'}</td>
                <td data-label="In consensus">${e.consensus ? 'yes' : 'no'}</td>
                <td data-label="Since">${e.since ? when(e.since) : '—'}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
  <//>`
}

/** One web search route: its state once asked, or why this server cannot use it. */
function Route({ route }) {
  const state = !route.available ? 'unavailable' : (route.health?.state ?? 'not asked')
  const title = route.unavailable_reason ?? (route.health ? `${route.health.requests} requests, since ${route.health.since ?? '—'}` : 'no request yet')
  return html`<span class="route" title=${title}>${route.name} <${Badge} tone=${TONE[state]}>${state}<//> </span>`
}

/** A link to one crawl's screen, opened inside the app. */
function CrawlLink({ id, button = false, children }) {
  const to = `/work/crawls/${encodeURIComponent(id)}`
  const go = (e) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return
    e.preventDefault()
    navigate(to)
  }
  return html`<a href=${APP + to} class=${button ? 'button' : undefined} onClick=${go}>${children}</a>`
}

/** /work/crawls/<id>: one crawl, its progress and its pages. */
function CrawlScreen({ id }) {
  return html`<section class="screen" aria-labelledby="crawl-title">
    <div class="screen-head">
      <h1 id="crawl-title">Crawl</h1>
      <a
        href=${`${APP}/work`}
        class="button"
        onClick=${(e) => {
          e.preventDefault()
          navigate('/work')
        }}
        >Back to work</a
      >
    </div>
    <section class="card"><${CrawlView} id=${id} /></section>
  </section>`
}

function Crawls() {
  const list = useLoad(() => api('GET', '/v1/crawls?limit=20'))
  const { error, change } = useChange(list.reload)
  const crawls = list.data?.crawls ?? []
  usePoll(
    crawls.some((c) => active(c.status)),
    list.reload,
    2000,
  )
  const cancel = (id) => change('DELETE', `/v1/crawls/${id}`)
  return html`<${ListCard} name="crawls" title="Crawls" list=${list} error=${error}>
    ${list.data && crawls.length === 0 && html`<p class="empty">No crawls in the last 24 hours. Start one with <code>POST /v1/crawl</code>.</p>`}
    ${
      crawls.length > 0 &&
      html`<div class="table-wrap">
        <table class="cards" data-testid="crawls-table">
          <thead><tr><th>Start URL</th><th>Status</th><th>Progress</th><th class="num">Credits</th><th>Created</th><th><span class="sr">Actions</span></th></tr></thead>
          <tbody>
            ${crawls.map(
              (c) => html`<tr key=${c.id}>
                <td data-label="Start URL" class="wrap url"><${CrawlLink} id=${c.id}>${c.url ?? c.id}<//></td>
                <td data-label="Status"><${Badge} tone=${TONE[c.status]}>${c.status}<//></td>
                <td data-label="Progress"><${Progress} done=${c.progress.pages_done} limit=${c.progress.limit} /></td>
                <td data-label="Credits" class="num">${credits(c.credits_used)} of ${credits(c.credits_reserved)}</td>
                <td data-label="Created">${when(c.created_at)}</td>
                <td class="actions">
                  <${CrawlLink} id=${c.id} button=${true}>Open<//>
                  ${active(c.status) && html`<button type="button" class="danger-text" onClick=${() => cancel(c.id)}>Cancel</button>`}
                </td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
  <//>`
}

function Batches() {
  const list = useLoad(() => api('GET', '/v1/batches?limit=50'))
  const jobs = list.data?.jobs ?? []
  usePoll(
    jobs.some((j) => active(j.status)),
    list.reload,
    3000,
  )
  return html`<${ListCard} name="batches" title="Batch jobs" list=${list}>
    ${list.data && jobs.length === 0 && html`<p class="empty">No batch jobs in the last 24 hours. Queue some with <code>POST /v1/batches</code>.</p>`}
    ${
      jobs.length > 0 &&
      html`<div class="table-wrap">
        <table class="cards" data-testid="batches-table">
          <thead><tr><th>Job</th><th>Endpoint</th><th>Status</th><th class="num">Credits</th><th>Created</th><th>Completed</th><th>Webhook</th></tr></thead>
          <tbody>
            ${jobs.map(
              (j) => html`<tr key=${j.id}>
                <td data-label="Job"><code class="small" title=${j.id}>${j.id.slice(0, 8)}</code></td>
                <td data-label="Endpoint">${j.endpoint}</td>
                <td data-label="Status"><${Badge} tone=${TONE[j.status]}>${j.status}<//>${j.error && html` <span class="small muted">${j.error.code}</span>`}</td>
                <td data-label="Credits" class="num">${credits(j.credits_used)}</td>
                <td data-label="Created">${when(j.created_at)}</td>
                <td data-label="Completed">${when(j.completed_at)}</td>
                <td data-label="Webhook">${j.webhook_status ?? '—'}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
  <//>`
}

const every = (s) => (s % 86400 === 0 ? `${s / 86400} d` : s % 3600 === 0 ? `${s / 3600} h` : `${Math.round(s / 60)} min`)

function Runs({ id }) {
  const runs = useLoad(() => api('GET', `/v1/monitors/${id}/runs?limit=10`), [id])
  if (runs.error) return html`<${ErrorNote} error=${runs.error} />`
  if (!runs.data) return html`<${Loading} />`
  if (runs.data.runs.length === 0) return html`<p class="empty">No runs yet.</p>`
  return html`<ul class="runs" data-testid="monitor-runs">
    ${runs.data.runs.map(
      (r) => html`<li key=${r.id}>
        <${Badge} tone=${TONE[r.status]}>${r.status}<//> ${when(r.completed_at)} · ${r.new_results} new · ${credits(r.credits_used)} credits
        ${r.error && html` · <span class="muted">${r.error.message}</span>`}
      </li>`,
    )}
  </ul>`
}

function Monitors() {
  const list = useLoad(() => api('GET', '/v1/monitors'))
  const [open, setOpen] = useState(null)
  const { error, change: act } = useChange(list.reload)
  const monitors = list.data?.monitors ?? []
  return html`<${ListCard} name="monitors" title="Monitors" list=${list} error=${error}>
    ${list.data && monitors.length === 0 && html`<p class="empty">No monitors yet. Create one with <code>POST /v1/monitors</code>.</p>`}
    ${
      monitors.length > 0 &&
      html`<div class="table-wrap">
        <table class="cards" data-testid="monitors-table">
          <thead><tr><th>Name</th><th>Endpoint</th><th>Every</th><th>Status</th><th>Last run</th><th>Next run</th><th class="num">New</th><th><span class="sr">Actions</span></th></tr></thead>
          <tbody>
            ${monitors.map(
              (m) => html`<tr key=${m.id}>
                  <td data-label="Name" class="wrap"><strong>${m.name}</strong></td>
                  <td data-label="Endpoint">${m.endpoint}</td>
                  <td data-label="Every">${every(m.interval_seconds)}</td>
                  <td data-label="Status">
                    <${Badge} tone=${m.active ? 'ok' : 'warn'}>${m.active ? 'active' : 'paused'}<//>
                    ${m.last_status && m.last_status !== 'paused' && html` <${Badge} tone=${TONE[m.last_status]}>${m.last_status}<//>`}
                  </td>
                  <td data-label="Last run">${when(m.last_run_at)}</td>
                  <td data-label="Next run">${when(m.next_run_at)}</td>
                  <td data-label="New" class="num">${m.last_new_results}</td>
                  <td class="actions">
                    <button type="button" onClick=${() => act('PATCH', `/v1/monitors/${m.id}`, { active: !m.active })}>${m.active ? 'Pause' : 'Resume'}</button>
                    ${m.active && html`<button type="button" onClick=${() => act('POST', `/v1/monitors/${m.id}/run`)}>Run now</button>`}
                    <button type="button" aria-expanded=${open === m.id} onClick=${() => setOpen(open === m.id ? null : m.id)}>History</button>
                  </td>
                </tr>
                ${open === m.id && html`<tr class="detail"><td colspan="8"><${Runs} id=${m.id} /></td></tr>`}`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${monitors.some((m) => m.last_error) && html`<p class="hint">Hover a status for details; a paused monitor shows why in its last error.</p>`}
  <//>`
}

export function WorkScreen({ session, path }) {
  const f = session.features ?? {}
  const crawl = /^\/work\/crawls\/([^/]+)$/.exec(path ?? '')
  if (crawl && f.crawls) return html`<${CrawlScreen} id=${decodeURIComponent(crawl[1])} />`
  return html`<section class="screen" aria-labelledby="work-title">
    <div class="screen-head"><h1 id="work-title">Work</h1></div>
    <p class="lede">Background work of the account: crawls and batch jobs of the last 24 hours, monitors, and the search providers' health.</p>
    ${f.crawls && html`<${Crawls} />`} ${f.batches && html`<${Batches} />`} ${f.monitors && html`<${Monitors} />`} ${f.engines && html`<${Engines} />`}
  </section>`
}
