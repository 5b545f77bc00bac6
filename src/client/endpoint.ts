/**
 * The endpoint's normal form, in a module of its own: the connection's resolution (`connection/
 * resolve.ts`) needs it when a provider loads, and `options.ts` would bring the client's runtime,
 * limiter and version with it, which only the first API call needs.
 */
import { InvalidArgumentError } from "../shared/errors/invalid-argument-error";

/**
 * Normalise an endpoint: trim, drop trailing slashes and a trailing `/v1` (the client adds it).
 * Throws on anything that is not an absolute http(s) URL.
 */
export function normalizeEndpoint(endpoint: string): string {
  const raw = (endpoint ?? "").trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgumentError(`Invalid CMS endpoint ${JSON.stringify(raw)}: expected an absolute URL such as https://cms.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidArgumentError(`Invalid CMS endpoint ${JSON.stringify(raw)}: only http and https are supported`);
  }
  if (url.username || url.password) {
    // Credentials in the URL would travel as Basic auth and show up in every message.
    throw new InvalidArgumentError("Invalid CMS endpoint: it must not contain credentials; pass the token separately");
  }
  url.search = "";
  url.hash = "";
  let path = url.pathname.replace(/\/+$/, "");
  if (/\/v1$/i.test(path)) path = path.slice(0, -3).replace(/\/+$/, "");
  return `${url.origin}${path}`;
}
