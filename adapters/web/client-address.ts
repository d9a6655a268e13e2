import { isIPv6 } from "node:net";
import type { Request } from "express";

/**
 * The client address a per-address limit counts. It is `req.ip`: the connection's peer, unless TRUST_PROXY names the
 * proxies in front of the bridge, whose `X-Forwarded-For` then says who their client was (express's `trust proxy`;
 * the header of anyone else is ignored, so nobody escapes a limit by writing it). An IPv4 address seen through IPv6
 * (`::ffff:1.2.3.4`) is that IPv4 address; an IPv6 address counts by its /64 network, since one host normally has a
 * whole /64 and can take a new address in it for every request.
 */
export function clientAddress(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  return isIPv6(ip) ? network64(ip) : ip;
}

/** `2001:db8:1:2:3:4:5:6` → `2001:db8:1:2::/64`, whatever the way the address is written. */
function network64(ip: string): string {
  const [head = "", tail] = ip.toLowerCase().replace(/%.*$/, "").split("::");
  const first = head === "" ? [] : head.split(":");
  const last = tail === undefined || tail === "" ? [] : tail.split(":");
  // Zeros elided by "::"; a trailing IPv4 part is two groups.
  const elided = 8 - first.length - last.length - (last.at(-1)?.includes(".") ? 1 : 0);
  const groups = [...first, ...Array<string>(Math.max(elided, 0)).fill("0"), ...last].slice(0, 4);
  return `${groups.map((group) => group.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
