import type { Config } from "./config.js";

/**
 * Settings that are valid but will likely not work as meant, one line each with the fix, for the start banner: each
 * channel plugin's warnings about its bots. A warning, not an error: a local Bot API server (TELEGRAM_API_ROOT)
 * accepts http:// webhooks, for instance.
 */
export function configWarnings(config: Config): string[] {
  const deployment = { publicUrl: config.bridge.publicUrl };
  return config.channels.flatMap(({ plugin, bots }) => plugin.warnings?.(bots, deployment) ?? []);
}
