// Subscription plans and what each allows. Token allowances come from the API contract; the other numbers
// are the emulator's documented choices (docs/emulator.md).

/** The plan names accepted in the accounts file and by the control API. */
export const PLAN_NAMES = ['trial', 'plan10', 'plan20', 'plan50', 'plan100'] as const;

/** One of {@link PLAN_NAMES}. */
export type PlanName = (typeof PLAN_NAMES)[number];

/** What a plan allows. */
export interface PlanLimits {
  /** Bearer tokens per account (the parent and each sub-account separately); 0 = no tokens. */
  readonly tokens: number;
  /** Sub-accounts per parent, unless the accounts file overrides it. */
  readonly subAccounts: number;
  /** Authorized proxies per parent. */
  readonly proxies: number;
}

/** The limits of every plan. */
export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  trial: { tokens: 0, subAccounts: 1, proxies: 2 },
  plan10: { tokens: 10, subAccounts: 10, proxies: 10 },
  plan20: { tokens: 20, subAccounts: 25, proxies: 20 },
  plan50: { tokens: 50, subAccounts: 50, proxies: 50 },
  plan100: { tokens: 100, subAccounts: 100, proxies: 100 },
};

/** Authorized IP addresses per account (the API contract). */
export const MAX_AUTHORIZED_IPS = 100;

/** True when `name` is a known plan. */
export function isPlanName(name: unknown): name is PlanName {
  return typeof name === 'string' && (PLAN_NAMES as readonly string[]).includes(name);
}
