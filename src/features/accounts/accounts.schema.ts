import { z } from 'zod'
import { PLANS } from '../../billing/plans.ts'

const plan = z.enum(PLANS, { error: `plan must be one of ${PLANS.join(', ')}` })
const credits = (name: string) =>
  z
    .number({ error: `${name} must be a number of credits` })
    .min(0, `${name} must be 0 or more`)
    .max(1e12)
const email = z.email({ error: 'email must be an email address' }).max(254)
export const password = z.string({ error: 'password must be a string' }).min(8, 'password must be at least 8 characters').max(256)
const rps = z.number().int().min(1, 'rate_limit_rps must be at least 1').max(100_000, 'rate_limit_rps must be at most 100,000')
const webhookUrl = z.url({ protocol: /^https?$/, error: 'webhook_url must be an http(s) URL' }).max(2048)

export const CreateAccountBody = z.strictObject({
  email,
  password: password.optional(),
  plan: plan.default('free'),
  credits: credits('credits').default(0),
  monthly_spend_cap: credits('monthly_spend_cap').nullable().optional(),
  daily_limit: credits('daily_limit').nullable().optional(),
  rate_limit_rps: rps.nullable().optional(),
})

export const PatchAccountBody = z.strictObject({
  plan: plan.optional(),
  monthly_spend_cap: credits('monthly_spend_cap').nullable().optional(),
  daily_limit: credits('daily_limit').nullable().optional(),
  rate_limit_rps: rps.nullable().optional(),
  webhook_url: webhookUrl.nullable().optional(),
  /** The owner's new password: every session of the owner is signed out. */
  password: password.optional(),
})

/** A password alone, as account creation takes it (the CLI's set-password). */
export const PasswordBody = z.strictObject({ password })

/** Self-service sign-up (TRAWL_SIGNUP=open). */
export const SignupBody = z.strictObject({ email, password })

export const AddCreditsBody = z.strictObject({
  credits: z.number({ error: 'credits is required' }).positive('credits must be more than 0').max(1e12),
  plan: plan.optional(),
})

export const AddMemberBody = z.strictObject({ email, password })

export const keyName = z.string({ error: 'name is required' }).trim().min(1, 'name must not be empty').max(64, 'name must be at most 64 characters')

export const CreateKeyBody = z.strictObject({
  // The operator API does not require a key name: unnamed keys are called as the first one is.
  name: keyName.default('default'),
  credit_limit: credits('credit_limit').nullable().optional(),
  user_id: z.string().min(1).optional(),
})

export const AccountIdParams = z.strictObject({ id: z.string().min(1) })
