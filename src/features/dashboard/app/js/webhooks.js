// Webhooks: the account URL, the signing secret (rotate: shown once), a test event, recent deliveries.
import { api, html, useLoad, useState, when } from './lib.js'
import { Badge, Confirm, ErrorNote, Loading, SecretReveal } from './ui.js'

const TONE = { delivered: 'ok', failed: 'bad', queued: 'warn', running: 'info' }

function Deliveries({ list, onRefresh }) {
  return html`<section class="card" aria-labelledby="deliveries-title">
    <div class="card-head">
      <h2 id="deliveries-title">Recent deliveries</h2>
      <button type="button" class="ghost" onClick=${onRefresh}>Refresh</button>
    </div>
    <${ErrorNote} error=${list.error} />
    ${list.loading && !list.data && html`<${Loading} />`}
    ${list.data?.deliveries.length === 0 && html`<p class="empty">No deliveries in the last 7 days.</p>`}
    ${
      list.data?.deliveries.length > 0 &&
      html`<div class="table-wrap">
        <table class="cards" data-testid="deliveries-table">
          <thead>
            <tr><th>Time</th><th>Event</th><th>Status</th><th class="num">Attempts</th><th class="num">Response</th><th>Detail</th></tr>
          </thead>
          <tbody>
            ${list.data.deliveries.map(
              (d) => html`<tr key=${d.id}>
                <td data-label="Time">${when(d.created_at)}</td>
                <td data-label="Event"><code>${d.event}</code></td>
                <td data-label="Status"><${Badge} tone=${TONE[d.status]}>${d.status}<//></td>
                <td data-label="Attempts" class="num">${d.attempts}</td>
                <td data-label="Response" class="num">${d.response_code ?? '—'}</td>
                <td data-label="Detail" class="wrap">${d.error ?? (d.next_attempt_at ? `next attempt ${when(d.next_attempt_at)}` : d.url)}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>`
    }
  </section>`
}

export function WebhooksScreen({ session }) {
  const owner = session.user.role === 'owner'
  const settings = useLoad(() => api('GET', '/v1/webhook'))
  const deliveries = useLoad(() => api('GET', '/v1/webhook/deliveries?limit=20'))
  const [url, setUrl] = useState(null)
  const [dialog, setDialog] = useState(null)
  const [error, setError] = useState(null)
  const [notice, setNotice] = useState(null)
  const [busy, setBusy] = useState(false)
  const current = settings.data
  const shownUrl = url ?? current?.url ?? ''
  const close = () => setDialog(null)

  const reveal = (title, secret) => setDialog(html`<${SecretReveal} title=${title} secret=${secret} onDone=${close} />`)
  const save = async (e, value) => {
    e?.preventDefault()
    setBusy(true)
    setError(null)
    setNotice(null)
    try {
      const next = await api('PUT', '/v1/webhook', { url: value === '' ? null : value })
      setUrl(null)
      await settings.reload()
      setNotice(next.url ? 'Webhook URL saved.' : 'Webhook URL cleared.')
      if (next.secret) reveal('Your webhook signing secret', next.secret)
    } catch (err) {
      setError(err)
    }
    setBusy(false)
  }
  const rotate = () =>
    setDialog(
      html`<${Confirm}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onClose=${close}
        onConfirm=${async () => {
          const { secret } = await api('POST', '/v1/webhook/secret/rotate')
          await settings.reload()
          reveal('New webhook signing secret', secret)
        }}
      >
        <p>The next delivery attempt, retries of earlier events included, is signed with the new secret. Update your receiver before you rotate.</p>
      <//>`,
    )
  const sendTest = async () => {
    setBusy(true)
    setError(null)
    setNotice(null)
    try {
      const { delivery } = await api('POST', '/v1/webhook/test')
      setNotice(
        delivery.status === 'delivered'
          ? `Test event delivered: the receiver answered HTTP ${delivery.response_code}.`
          : `Test event failed: ${delivery.error ?? 'no answer'}.`,
      )
      deliveries.reload()
    } catch (err) {
      setError(err)
    }
    setBusy(false)
  }

  return html`<section class="screen" aria-labelledby="webhooks-title">
    <div class="screen-head"><h1 id="webhooks-title">Webhooks</h1></div>
    <p class="lede">
      Batches, crawls and monitors POST signed events (<code>X-Trawl-Signature</code>, and Standard Webhooks headers) to this URL unless a job names its
      own.
    </p>
    ${settings.loading && !current && html`<${Loading} />`}
    <${ErrorNote} error=${settings.error} />
    ${
      current &&
      html`<section class="card" aria-labelledby="endpoint-title">
        <h2 id="endpoint-title">Endpoint</h2>
        <form class="row-form" onSubmit=${(e) => save(e, shownUrl.trim())}>
          <label class="field grow">
            <span>Webhook URL</span>
            <input
              type="url"
              name="webhook_url"
              placeholder="https://example.com/trawl-webhook"
              value=${shownUrl}
              disabled=${!owner}
              onInput=${(e) => setUrl(e.currentTarget.value)}
            />
          </label>
          ${
            owner &&
            html`<div class="buttons">
              <button type="submit" class="primary" disabled=${busy}>Save</button>
              ${current.url && html`<button type="button" disabled=${busy} onClick=${() => save(null, '')}>Clear</button>`}
            </div>`
          }
        </form>
        ${!owner && html`<p class="hint">Only the account owner changes the webhook URL and rotates the secret.</p>`}
        <div class="secret-row">
          <div>
            <span class="stat-label">Signing secret</span>
            <div data-testid="secret-prefix">
              ${current.secret_prefix ? html`<code>${current.secret_prefix}…</code>` : html`<span class="muted">created with the first webhook</span>`}
            </div>
          </div>
          <div class="buttons">
            ${owner && current.secret_prefix && html`<button type="button" onClick=${rotate}>Rotate secret</button>`}
            <button type="button" disabled=${busy || !current.url} onClick=${sendTest} title=${current.url ? '' : 'Set a URL first'}>Send test event</button>
          </div>
        </div>
        ${notice && html`<p class="notice" role="status">${notice}</p>`}
        <${ErrorNote} error=${error} />
      </section>`
    }
    <${Deliveries} list=${deliveries} onRefresh=${deliveries.reload} />
    ${dialog}
  </section>`
}
