/**
 * Where the provider and the functions find the service's address and token. In order, per
 * setting:
 *
 * 1. the resource's explicit `connection` argument,
 * 2. stack configuration `cms:endpoint` / `cms:token` (handed to the provider by the engine),
 * 3. environment variables `CMS_ENDPOINT` / `CMS_TOKEN`.
 *
 * Pure apart from the default `env` argument. Messages never contain the token.
 */
import { normalizeEndpoint } from "../client/endpoint";
import { CmsError } from "../shared/errors/cms-error";

/** Explicit connection settings given to one resource or function call. */
export interface ConnectionInputs {
  /** Base URL of the service, without `/v1`. */
  endpoint?: string;
  /** API token; the Cluster resource marks it secret. */
  token?: string;
}

/** Stack configuration keys. */
export const CONFIG_ENDPOINT_KEY = "cms:endpoint";
/** Stack configuration key of the token (set it with `pulumi config set --secret`). */
export const CONFIG_TOKEN_KEY = "cms:token";
/** Environment variable of the endpoint. */
export const ENV_ENDPOINT = "CMS_ENDPOINT";
/** Environment variable of the token. */
export const ENV_TOKEN = "CMS_TOKEN";

/** A resolved connection: both settings present. */
export interface Connection {
  /** Base URL without `/v1` and without a trailing slash. */
  endpoint: string;
  /** API token. Never logged, never in a message. */
  token: string;
}

/** The places a connection setting can come from, most specific first. */
export interface ConnectionSources {
  /** The resource's or call's `connection` argument. */
  explicit?: ConnectionInputs;
  /** Stack configuration `cms:endpoint` / `cms:token`. */
  config?: ConnectionInputs;
  /** Environment (`CMS_ENDPOINT`, `CMS_TOKEN`); `process.env` by default. */
  env?: Record<string, string | undefined>;
  /** Whose `connection` argument a missing setting's message names; `"resource"` by default. */
  caller?: "resource" | "function";
}

/** Raised when a setting is missing everywhere; names every place it looked. */
export class ConnectionError extends CmsError {
  /** Always `connection_not_configured`. */
  readonly code = "connection_not_configured";

  constructor(message: string) {
    super(message);
    this.name = "ConnectionError";
  }
}

const present = (v: string | undefined | null): v is string => typeof v === "string" && v.trim() !== "";

/**
 * Pick each setting from the most specific source that has it.
 *
 * @throws ConnectionError naming the setting and all three ways to provide it
 */
export function resolveConnection(sources: ConnectionSources): Connection {
  const env = sources.env ?? process.env;
  const endpoint = [sources.explicit?.endpoint, sources.config?.endpoint, env[ENV_ENDPOINT]].find(present);
  const token = [sources.explicit?.token, sources.config?.token, env[ENV_TOKEN]].find(present);
  const argument = (member: string) =>
    sources.caller === "function" ? `pass \`connection: { ${member} }\` to the function` : `set the resource's connection.${member}`;
  if (!endpoint) {
    throw new ConnectionError(
      `No Cluster Management Service endpoint is configured: ${argument("endpoint")}, ` +
        `run \`pulumi config set ${CONFIG_ENDPOINT_KEY} <url>\`, or set ${ENV_ENDPOINT}.`,
    );
  }
  if (!token) {
    throw new ConnectionError(
      `No Cluster Management Service token is configured: ${argument("token")}, ` +
        `run \`pulumi config set --secret ${CONFIG_TOKEN_KEY} <token>\`, or set ${ENV_TOKEN}.`,
    );
  }
  return { endpoint: normalizeEndpoint(endpoint), token: token.trim() };
}

/** Drop unset members so `{...a, ...b}` merges do not overwrite with undefined. */
export function dropEmpty(c: ConnectionInputs): ConnectionInputs {
  const out: ConnectionInputs = {};
  if (present(c.endpoint)) out.endpoint = c.endpoint;
  if (present(c.token)) out.token = c.token;
  return out;
}
