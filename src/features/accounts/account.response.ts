import { z } from 'zod'

/** GET /v1/account's answer, for the OpenAPI document. */
export const AccountResponse = z.object({
  balance: z.number().describe('credits'),
  rate_limit_rps: z.number().int(),
  plan: z.string(),
  key: z.object({ id: z.string(), name: z.string(), credit_limit: z.number().nullable(), credits_used_month: z.number() }),
  monthly_spend_cap: z.number().nullable(),
  month: z.object({ credits: z.number(), requests: z.number().int() }).describe('this UTC month, whole account'),
})

export type AccountResponse = z.infer<typeof AccountResponse>
