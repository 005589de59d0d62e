// Usage: balance and limits, credits per day by key or endpoint, and the ledger.
import { StackedBars, topSeries } from './chart.js'
import { api, credits, html, useEffect, useLoad, useState, when } from './lib.js'
import { ErrorNote, Loading, Stat } from './ui.js'

const KIND_LABEL = { purchase: 'Credits added', reserve: 'Debit', charge: 'Debit', refund: 'Refund' }

/** Ledger rows per page: 10 entries stay about one phone screen tall. */
export const LEDGER_PAGE = 10

function Ledger() {
  // The cursor (`before`) of every page seen so far: Previous goes back without asking the server for a reverse order.
  const [cursors, setCursors] = useState([undefined])
  const [index, setIndex] = useState(0)
  const [entries, setEntries] = useState(null)
  const [next, setNext] = useState(null)
  const [error, setError] = useState(null)
  const [busy, setBusy] = useState(false)
  const load = async (at, list = cursors) => {
    setBusy(true)
    try {
      const before = list[at]
      const page = await api('GET', `/v1/ledger?limit=${LEDGER_PAGE}${before ? `&before=${before}` : ''}`)
      setEntries(page.entries)
      setNext(page.next_before)
      setIndex(at)
      setCursors(page.next_before ? [...list.slice(0, at + 1), page.next_before] : list.slice(0, at + 1))
      setError(null)
    } catch (e) {
      setError(e)
    }
    setBusy(false)
  }
  useEffect(() => {
    load(0)
  }, [])
  const first = index * LEDGER_PAGE + 1
  return html`<section class="card" aria-labelledby="ledger-title">
    <div class="card-head">
      <h2 id="ledger-title">Ledger</h2>
      <button type="button" class="ghost" onClick=${() => load(0, [undefined])} disabled=${busy}>Refresh</button>
    </div>
    <p class="hint">Each call holds its price, then refunds what it did not deliver: failed and empty calls net to zero.</p>
    <${ErrorNote} error=${error} />
    ${entries === null && !error && html`<${Loading} />`}
    ${
      entries?.length > 0 &&
      html`<div class="table-wrap">
        <table class="cards ledger" data-testid="ledger-table">
          <thead>
            <tr><th>Time</th><th>Kind</th><th class="num">Credits</th><th class="num">Balance after</th><th>Endpoint</th><th>Key</th><th>Request</th></tr>
          </thead>
          <tbody>
            ${entries.map(
              (e) => html`<tr key=${e.id}>
                <td data-label="Time">${when(e.created_at)}</td>
                <td data-label="Kind">${KIND_LABEL[e.kind] ?? e.kind}</td>
                <td data-label="Credits" class=${`num ${e.amount < 0 ? 'neg' : 'pos'}`}>${e.amount > 0 ? '+' : ''}${credits(e.amount)}</td>
                <td data-label="Balance after" class="num">${credits(e.balance_after)}</td>
                <td data-label="Endpoint">${e.endpoint ?? '—'}</td>
                <td data-label="Key">${e.key_name ?? '—'}</td>
                <td data-label="Request"><code class="small">${e.request_id ?? '—'}</code></td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
    ${entries?.length === 0 && index === 0 && html`<p class="empty">No ledger entries yet.</p>`}
    ${
      (index > 0 || next) &&
      html`<nav class="pager" aria-label="Ledger pages">
        <button type="button" onClick=${() => load(index - 1)} disabled=${busy || index === 0}>Previous</button>
        <span class="small muted" data-testid="ledger-range" aria-live="polite">Entries ${first}–${first + (entries?.length ?? 1) - 1}</span>
        <button type="button" onClick=${() => load(index + 1)} disabled=${busy || !next}>Next</button>
      </nav>`
    }
  </section>`
}

export function UsageScreen({ session, refreshSession }) {
  const { account } = session
  const usage = useLoad(() => api('GET', '/v1/usage?days=30'))
  const [by, setBy] = useState('key')
  useEffect(() => {
    refreshSession()
  }, [refreshSession])
  const data = usage.data
  const series = data
    ? topSeries(
        by === 'key'
          ? data.by_key.map((s) => ({ ...s, label: s.revoked ? `${s.name} (revoked)` : s.name }))
          : data.by_endpoint.map((s) => ({ ...s, label: s.endpoint })),
      )
    : []
  const today = account.today
  return html`<section class="screen" aria-labelledby="usage-title">
    <div class="screen-head">
      <h1 id="usage-title">Usage</h1>
      <button
        type="button"
        onClick=${() => {
          refreshSession()
          usage.reload()
        }}
      >
        Refresh
      </button>
    </div>
    <div class="stats" data-testid="usage-stats">
      <${Stat} label="Balance" value=${`${credits(account.balance)} credits`} />
      <${Stat} label="Plan" value=${account.plan} />
      <${Stat} label="Rate limit" value=${`${account.rate_limit_rps} req/s`} note="per key" />
      <${Stat} label="Monthly spend cap" value=${account.monthly_spend_cap == null ? 'none' : `${credits(account.monthly_spend_cap)} credits`} />
      <${Stat} label=${`Credits this month (${account.month.period})`} value=${credits(account.month.credits)} />
      <${Stat} label="Requests this month" value=${credits(account.month.requests)} />
      ${account.daily_limit != null && html`<${Stat} label="Today" value=${`${credits(today.credits)} of ${credits(account.daily_limit)}`} note="daily limit" />`}
    </div>
    <section class="card" aria-labelledby="chart-title">
      <div class="card-head">
        <h2 id="chart-title">Credits per day, last 30 days</h2>
        <div class="segmented" role="group" aria-label="Group by">
          <button type="button" aria-pressed=${by === 'key'} onClick=${() => setBy('key')}>By key</button>
          <button type="button" aria-pressed=${by === 'endpoint'} onClick=${() => setBy('endpoint')}>By endpoint</button>
        </div>
      </div>
      <${ErrorNote} error=${usage.error} />
      ${data ? html`<${StackedBars} days=${data.days} series=${series} title=${by === 'key' ? 'Credits per day by key' : 'Credits per day by endpoint'} />` : html`<${Loading} />`}
    </section>
    <${Ledger} />
  </section>`
}
