/**
 * The names of the webhook commands, apart so that what runs them (webhook-command-run.ts) and what
 * dispatches to it (webhook-commands.ts) agree without importing each other.
 */
export const webhookCommandNames = ['rotate-webhook-secret', 'webhook-secret', 'reencrypt-webhook-secrets'] as const
export type WebhookCommand = (typeof webhookCommandNames)[number]
