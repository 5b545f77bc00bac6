/**
 * One spelling per path, before routing: whatever a client sends, the router, the authentication
 * and rate-limit hook, the request counts and the faults all see the same path, so a route cannot
 * be reached by a spelling that those checks do not recognise (`/%761/clusters`,
 * `/v1//clusters`, `/x/../v1/clusters`, absolute-form `GET http://host/v1/clusters`).
 *
 * RFC 3986 normalisation: the authority of an absolute-form target is dropped; percent-encoded
 * unreserved characters are decoded (others are kept, with upper-case hex, so `%2F` stays a
 * character of a segment, not a separator); runs of `/` become one; `.` and `..` segments are
 * removed. Case is kept: paths are case-sensitive, so `/V1/clusters` is no route (404).
 */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** The canonical form of a request target (path and query; the query is left as sent). */
export function canonicalUrl(target: string): string {
  let url = target;
  const absolute = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(url);
  if (absolute) url = url.slice(absolute[0].length) || "/";
  if (!url.startsWith("/")) return url; // `*` (OPTIONS) or garbage: the router answers it
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : encoded.toUpperCase();
  });
  return removeDotSegments(decoded.replace(/\/{2,}/g, "/")) + query;
}

/** RFC 3986 section 5.2.4 on an absolute path. */
function removeDotSegments(path: string): string {
  const out: string[] = [];
  const segments = path.split("/").slice(1);
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === ".") {
      if (last) out.push("");
    } else if (segment === "..") {
      out.pop();
      if (last) out.push("");
    } else {
      out.push(segment);
    }
  });
  return `/${out.join("/")}`;
}
