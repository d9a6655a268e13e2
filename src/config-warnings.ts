import type { Config } from "./config.js";

/**
 * Settings that are valid but will likely not work as meant, one line each with the fix, for the start banner. A
 * warning, not an error: a local Bot API server (TELEGRAM_API_ROOT) accepts http:// webhooks, for instance.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = [];
  const publicUrl = config.bridge.publicUrl;
  const webhookBots = [
    ...(config.telegram.botToken && config.telegram.mode === "webhook" ? ["default"] : []),
    ...config.bots.filter((bot) => bot.telegram && (bot.telegram.mode ?? config.telegram.mode) === "webhook"),
  ];
  if (publicUrl?.startsWith("http://") && webhookBots.length > 0) {
    warnings.push(
      `PUBLIC_URL=${publicUrl} is not https: Telegram posts webhooks only to https:// addresses (except a local Bot API server); set PUBLIC_URL to the https address of this server, or TELEGRAM_MODE=polling.`,
    );
  }
  return warnings;
}
