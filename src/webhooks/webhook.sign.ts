import { createHmac } from 'node:crypto'
import { WEBHOOK_SECRET_PREFIX } from '../security/secrets.ts'

export const WEBHOOK_USER_AGENT = 'Trawl-Webhooks/1.0'

/**
 * The signature (docs/sdk.md "Webhooks"): `v1=` + hex HMAC-SHA256 keyed with the whole secret as shown (`whsec_…`), over
 * `${timestamp}.${rawBody}`, where the timestamp is this attempt's Unix time in seconds.
 */
export function signPayload(secret: string, timestamp: number, rawBody: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`
}

/**
 * Standard Webhooks (standardwebhooks.com): `v1,` + base64 HMAC-SHA256 over `${id}.${timestamp}.${body}`,
 * keyed with the base64-decoded part after `whsec_`. Sent beside our own header so receivers can use
 * any Standard Webhooks library with the secret exactly as the dashboard showed it.
 */
export function signStandard(secret: string, id: string, timestamp: number, rawBody: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`
}

/** `webhook.test`: the dashboard's "send test event" (sent once, not retried). */
export type WebhookEvent = 'crawl.completed' | 'batch.completed' | 'monitor.results' | 'research.completed' | 'webhook.test'

/** Every header of one attempt; signed afresh each time, so a rotated secret applies at once. */
export function webhookHeaders(input: { id: string; event: WebhookEvent; secret: string; body: string; now?: number }): Record<string, string> {
  const timestamp = Math.floor((input.now ?? Date.now()) / 1000)
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-trawl-event': input.event,
    'x-trawl-delivery': input.id,
    'x-trawl-timestamp': String(timestamp),
    'x-trawl-signature': signPayload(input.secret, timestamp, input.body),
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signStandard(input.secret, input.id, timestamp, input.body),
  }
}
