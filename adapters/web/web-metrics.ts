import { Counter, type Registry } from "prom-client";
import { registered } from "../../src/plugin/plugin-api.js";

/**
 * Web chat requests refused with 429 by the per-visitor and per-address limits, by `kind` (message, identity, upload,
 * stream) and the `scope` whose budget was spent (visitor, ip): see visitor-limits.ts. In the bridge's registry.
 */
export function webLimitedCounter(registry: Registry): Counter<"kind" | "scope"> {
  return registered(
    registry,
    "chatbridge_web_limited_total",
    (registers) =>
      new Counter({
        name: "chatbridge_web_limited_total",
        help: "Web chat requests refused because a visitor or a client address was over its limit, by kind (message, identity, upload, stream) and scope (visitor, ip)",
        labelNames: ["kind", "scope"],
        registers,
      }),
  );
}
