// Keys: list, create (secret shown once), rename, limit (owner), fallback switch, rotate, revoke.
import { ago, api, credits, html, useAction, useLoad, useState, when } from './lib.js'
import { Confirm, ErrorNote, FormFoot, Loading, Modal, PromptModal, SecretReveal, Switch } from './ui.js'

const limitText = (limit) => (limit == null ? 'none' : `${credits(limit)} / month`)
const parseLimit = (value) => {
  const text = String(value).trim()
  if (text === '') return null
  const n = Number(text)
  if (!Number.isFinite(n) || n < 0) throw new Error('Enter a number of credits (0 or more), or leave it empty for no limit.')
  return n
}

/** A monthly credit limit asked for in a dialog: empty removes it, so `save` gets a number or null. */
function LimitPrompt({ title, label, limit, hint, onClose, save }) {
  return html`<${PromptModal}
    title=${title}
    label=${label}
    type="number"
    placeholder="no limit"
    initial=${limit == null ? '' : String(limit)}
    hint=${hint}
    onClose=${onClose}
    onSubmit=${(value) => save(parseLimit(value))}
  />`
}

function CreateKey({ owner, memberLimit, onClose, onCreated }) {
  const [name, setName] = useState('')
  const [limit, setLimit] = useState('')
  const { busy, error, run } = useAction()
  const submit = (e) => {
    e.preventDefault()
    return run(async () => {
      const body = { name }
      if (owner && limit.trim() !== '') body.credit_limit = parseLimit(limit)
      onCreated(await api('POST', '/v1/keys', body))
    })
  }
  return html`<${Modal} title="Create an API key" onClose=${onClose}>
    <form onSubmit=${submit}>
      <label class="field">
        <span>Name</span>
        <input name="name" required maxlength="64" placeholder="e.g. production" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
      </label>
      ${
        owner
          ? html`<label class="field">
              <span>Monthly credit limit (optional)</span>
              <input
                name="credit_limit"
                type="number"
                min="0"
                step="any"
                placeholder="no limit"
                value=${limit}
                onInput=${(e) => setLimit(e.currentTarget.value)}
              />
            </label>`
          : html`<p class="hint">
              ${memberLimit == null ? 'Keys created by members have no monthly limit.' : `The owner's member key limit applies: ${credits(memberLimit)} credits per month.`}
            </p>`
      }
      <${FormFoot} error=${error} busy=${busy} label="Create key" working="Creating…" onClose=${onClose} />
    </form>
  <//>`
}

function MemberLimit({ owner, limit, onEdit }) {
  return html`<section class="card inline-card" aria-label="Member key limit">
    <div>
      <strong>Member key limit:</strong> ${limitText(limit)}
      <p class="hint">Every key a member creates gets this monthly limit; members cannot change it.</p>
    </div>
    ${owner && html`<button type="button" onClick=${onEdit}>Change</button>`}
  </section>`
}

export function KeysScreen({ session, refreshSession }) {
  const { user, account } = session
  const owner = user.role === 'owner'
  const keys = useLoad(() => api('GET', '/v1/keys'))
  const [dialog, setDialog] = useState(null)
  const [rowError, setRowError] = useState(null)
  const close = () => setDialog(null)
  const closeAndReload = () => {
    setDialog(null)
    keys.reload()
  }
  const canManage = (k) => owner || k.created_by === user.id

  const reveal = (title, secret, note) => setDialog(html`<${SecretReveal} title=${title} secret=${secret} onDone=${closeAndReload}>${note}<//>`)

  const create = () =>
    setDialog(
      html`<${CreateKey}
        owner=${owner}
        memberLimit=${account.member_key_limit}
        onClose=${close}
        onCreated=${(key) => {
          keys.reload()
          reveal('Your new API key', key.secret, html`<p>Key <strong>${key.name}</strong> is ready. Send it as <code>Authorization: Bearer …</code>.</p>`)
        }}
      />`,
    )
  const rename = (k) =>
    setDialog(
      html`<${PromptModal}
        title=${`Rename “${k.name}”`}
        label="Name"
        initial=${k.name}
        onClose=${close}
        onSubmit=${async (name) => {
          await api('PATCH', `/v1/keys/${k.id}`, { name })
          closeAndReload()
        }}
      />`,
    )
  const setLimit = (k) =>
    setDialog(
      html`<${LimitPrompt}
        title=${`Monthly limit of “${k.name}”`}
        label="Credits per UTC month"
        limit=${k.credit_limit}
        hint="Leave empty to remove the limit. A call that would pass it is refused with 403 key_limit_reached."
        onClose=${close}
        save=${async (limit) => {
          await api('PATCH', `/v1/keys/${k.id}`, { credit_limit: limit })
          closeAndReload()
        }}
      />`,
    )
  const rotate = (k) =>
    setDialog(
      html`<${Confirm}
        title=${`Rotate “${k.name}”?`}
        confirmLabel="Rotate key"
        onClose=${close}
        onConfirm=${async () => {
          const rotated = await api('POST', `/v1/keys/${k.id}/rotate`)
          reveal(`New secret for “${k.name}”`, rotated.secret, html`<p>The old secret has stopped working. Update every program that used it.</p>`)
        }}
      >
        <p>A new secret replaces the current one at once: requests with the old secret fail from now on. The name, limit and this month's usage stay.</p>
      <//>`,
    )
  const revoke = (k) =>
    setDialog(
      html`<${Confirm}
        title=${`Revoke “${k.name}”?`}
        confirmLabel="Revoke key"
        danger=${true}
        onClose=${close}
        onConfirm=${async () => {
          await api('DELETE', `/v1/keys/${k.id}`)
          closeAndReload()
        }}
      >
        <p>Requests with this key will fail with 401 at once (within a minute on other servers). This cannot be undone; its past usage stays in the history.</p>
      <//>`,
    )
  const toggleFallback = async (k, on) => {
    setRowError(null)
    // The switch shows the new state at once; the reload below confirms it (or undoes it on error).
    keys.update((data) => ({ ...data, keys: data.keys.map((x) => (x.id === k.id ? { ...x, allow_fallback: on } : x)) }))
    try {
      await api('PATCH', `/v1/keys/${k.id}`, { allow_fallback: on })
    } catch (e) {
      setRowError(e)
    }
    keys.reload()
  }
  const editMemberLimit = () =>
    setDialog(
      html`<${LimitPrompt}
        title="Member key limit"
        label="Credits per UTC month for every member key"
        limit=${account.member_key_limit}
        hint="Applies at once to every key members created, and to the ones they create later. Leave empty for none."
        onClose=${close}
        save=${async (limit) => {
          await api('PUT', '/v1/team/member-key-limit', { credit_limit: limit })
          await refreshSession()
          closeAndReload()
        }}
      />`,
    )

  const list = keys.data?.keys ?? []
  return html`<section class="screen" aria-labelledby="keys-title">
    <div class="screen-head">
      <h1 id="keys-title">API keys</h1>
      <button type="button" class="primary" onClick=${create}>Create key</button>
    </div>
    <p class="lede">
      Every key spends from the account balance (${credits(account.balance)} credits).
      ${owner ? ' As the owner you manage every key and set limits.' : ' As a member you manage the keys you created; the owner sets limits.'}
    </p>
    <${MemberLimit} owner=${owner} limit=${account.member_key_limit} onEdit=${editMemberLimit} />
    <${ErrorNote} error=${keys.error || rowError} />
    ${keys.loading && !keys.data && html`<${Loading} what="Loading keys" />`}
    ${
      keys.data &&
      (list.length === 0
        ? html`<p class="empty">No keys yet. Create one to call the API.</p>`
        : html`<div class="table-wrap">
            <table class="keys cards" data-testid="keys-table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Prefix</th>
                  <th>Created</th>
                  <th>Last used</th>
                  <th class="num">This month</th>
                  <th>Limit</th>
                  <th>Fallback</th>
                  <th><span class="sr">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                ${list.map(
                  (k) => html`<tr key=${k.id} data-key-id=${k.id}>
                    <td data-label="Name" class="key-name"><strong>${k.name}</strong>${k.created_by === user.id ? '' : html` <span class="muted small">(other user)</span>`}</td>
                    <td data-label="Prefix"><code>${k.prefix}…</code></td>
                    <td data-label="Created">${when(k.created_at)}</td>
                    <td data-label="Last used" title=${k.last_used_at ?? ''}>${ago(k.last_used_at)}</td>
                    <td data-label="This month" class="num">${credits(k.credits_used_month)}</td>
                    <td data-label="Limit">${limitText(k.credit_limit)}</td>
                    <td data-label="Fallback">
                      <${Switch}
                        checked=${k.allow_fallback}
                        disabled=${!canManage(k)}
                        label=${`Engine fallback for ${k.name}`}
                        onChange=${(on) => toggleFallback(k, on)}
                      />
                    </td>
                    <td class="actions">
                      ${
                        canManage(k)
                          ? html`<button type="button" onClick=${() => rename(k)}>Rename</button>
                              ${owner && html`<button type="button" onClick=${() => setLimit(k)}>Limit</button>`}
                              <button type="button" onClick=${() => rotate(k)}>Rotate</button>
                              <button type="button" class="danger-text" onClick=${() => revoke(k)}>Revoke</button>`
                          : html`<span class="muted small">Managed by its creator or the owner</span>`
                      }
                    </td>
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`)
    }
    <p class="hint">
      Fallback: when on, requests from the key that name no <code>engine</code> behave as <code>engine=auto</code> and move to another provider when one
      is blocked.
    </p>
    ${dialog}
  </section>`
}
