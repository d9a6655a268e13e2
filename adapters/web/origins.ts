import type { NextFunction, Request, Response } from "express";
import type { ChatbotSettings } from "../../src/plugin/plugin-api.js";

/**
 * Whether a page at `origin` may use the chatbot's widget. With `VerifyDomain` off every page may. With it on, only
 * the hosts in `Domains` (separated by commas, spaces or lines; a scheme or path written with them is ignored) and
 * `CustomDomain`, each with its subdomains (`example.com` admits `www.example.com`), and chatbridge's own pages.
 * A request without an `Origin` is not from another site's page (browsers send it on every cross-origin request):
 * it is admitted, so the page at `/`, `curl` and the platforms' servers are never refused.
 */
export function originAllowed(
  origin: string | undefined,
  settings: ChatbotSettings | undefined,
  ownHost: string | undefined,
): boolean {
  if (origin === undefined || settings?.VerifyDomain !== true) return true;
  const host = hostOf(origin);
  if (host === undefined) return false;
  // chatbridge's own page (the same host and port as the request's).
  if (ownHost !== undefined && urlOf(origin)?.host === ownHost.toLowerCase()) return true;
  const listed = [...(settings.Domains ?? "").split(/[\s,;]+/), settings.CustomDomain ?? ""]
    .map((entry) => hostOf(/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ? entry : `https://${entry}`))
    .filter((entry): entry is string => entry !== undefined && entry !== "");
  return listed.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The refusal a page of an origin not admitted gets, in words. */
export function originRefusal(origin: string): { error: string } {
  return {
    error: `this chatbot's widget is not enabled on ${origin}: add its domain to the chatbot's Domains, or turn VerifyDomain off`,
  };
}

/**
 * CORS for the widget's endpoints: the page's origin is echoed (with `Vary: Origin`, so caches keep one answer per
 * origin) and a preflight for a JSON post is answered; no credentials, since the visitor's identity travels in the
 * requests, not in cookies. Whether the origin is admitted is each route's decision (it depends on the chatbot).
 */
export function widgetCors(req: Request, res: Response, next: NextFunction): void {
  const origin = req.get("origin");
  res.vary("Origin");
  if (origin) res.set("access-control-allow-origin", origin);
  if (req.method === "OPTIONS") {
    res.set({
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": "content-type, last-event-id",
      "access-control-max-age": "600",
    });
    res.status(204).end();
    return;
  }
  next();
}

function urlOf(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

function hostOf(url: string): string | undefined {
  return urlOf(url)?.hostname.toLowerCase();
}
