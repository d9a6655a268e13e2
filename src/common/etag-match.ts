/**
 * Whether a request's `If-None-Match` names `etag` (or is `*`), compared weakly as RFC 9110 asks for GET: the answer is
 * then a 304 without the body. Checked by hand rather than by express's `req.fresh`, which answers the whole body to a
 * request that also says `Cache-Control: no-cache`, as fetch() sends with any conditional header.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  const wanted = etag.replace(/^W\//, "");
  return (ifNoneMatch ?? "")
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === wanted);
}
