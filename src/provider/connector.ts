/**
 * Connecting an operation to the service: which endpoint and token a resource uses (its explicit
 * connection, then the stack configuration, then the environment), a client for it whose retries
 * show on the progress line, and the fallback to a newer token when the one in use is refused
 * during `refresh` or `destroy`.
 */
import type { ClientOptions, CmsClient } from "../client";
import { statusOf } from "../client/errors";
import { dropEmpty, resolveConnection, type Connection, type ConnectionInputs } from "../connection";
import { retryLine } from "./progress/lines";
import type { ProviderSettings } from "./settings";
import type { ClientRuntime } from "../client/runtime";

let clientModule: Promise<typeof import("../client/index.js")> | undefined;
const whenLoaded: Array<() => void> = [];

/** Call `hook` once the client's module has loaded (a host saves what it has compiled then). */
export function afterClientLoads(hook: () => void): void {
  whenLoaded.push(hook);
}

/**
 * The client's module, loaded by the first operation that calls the API (a preview's check and
 * diff never do).
 */
function loadClient(): Promise<typeof import("../client/index.js")> {
  if (!clientModule) {
    clientModule = import("../client/index.js");
    clientModule.then(
      () => {
        for (const hook of whenLoaded) hook();
      },
      () => (clientModule = undefined),
    );
  }
  return clientModule;
}

/** An operation's time limit, passed to its client: `customTimeouts` or the default. */
export interface OperationDeadline {
  ms: number;
  /** How messages name it, e.g. `create timeout`. */
  name: string;
}

/** Where a provider's connections come from. */
export interface ConnectorSources {
  /** The stack configuration `configure` stored (`cms:endpoint`, `cms:token`). */
  configured(): ConnectionInputs;
  /** The provider's settings now: the environment and extra client options. */
  settings(): ProviderSettings;
  /** What the clients share (the process's runtime: `runtime.ts`). */
  runtime: ClientRuntime;
}

/** A resource's client and the connection it uses. */
export interface Connected {
  client: CmsClient;
  connection: Connection;
}

/**
 * Tokens to try, in order, when the one in use is refused during `refresh` or `destroy`. Both run
 * with connection settings that can be out of date:
 * - a stored explicit token goes stale when it is rotated, because changing only `connection` is
 *   no change (no update rewrites the outputs), while `refresh` and `destroy` only see outputs;
 * - the engine configures the provider for `refresh` and `destroy` from the stack configuration
 *   recorded by the last `up`, so a token rotated with `pulumi config set` arrives only with the
 *   next `up` (or with `--run-program`).
 * Each source after the one in use (stack config, then `CMS_TOKEN`) that holds a different token
 * may be the current one. The endpoint is never swapped: another service would answer 404 for
 * the id, which would read as "deleted".
 */
export function alternativeTokens(
  explicit: ConnectionInputs | undefined,
  used: string,
  configured: ConnectionInputs,
  env: Record<string, string | undefined>,
): string[] {
  const later = dropEmpty(explicit ?? {}).token ? [configured.token, env.CMS_TOKEN] : [env.CMS_TOKEN];
  const out: string[] = [];
  for (const t of later) {
    const token = typeof t === "string" ? t.trim() : "";
    if (token !== "" && token !== used && !out.includes(token)) out.push(token);
  }
  return out;
}

/** Connects a provider's operations; see the module comment. */
export class Connector {
  constructor(private readonly sources: ConnectorSources) {}

  private env(): Record<string, string | undefined> {
    return this.sources.settings().env ?? process.env;
  }

  /** The connection of a resource: its explicit one, then the stack configuration, then the environment. */
  resolve(explicit: ConnectionInputs | undefined): Connection {
    return resolveConnection({ explicit: dropEmpty(explicit ?? {}), config: this.sources.configured(), env: this.env() });
  }

  /**
   * Resolve the connection for a resource and open a client. The token stays inside the client.
   * With `onProgress`, each retry the client waits for is shown (an unreachable endpoint, 5xx,
   * 429) with the time of the next attempt, instead of a progress line that stands still.
   */
  async connect(
    explicit: ConnectionInputs | undefined,
    onProgress?: (line: string) => void,
    deadline?: OperationDeadline,
  ): Promise<Connected> {
    const connection = this.resolve(explicit);
    return { client: await this.open(connection, onProgress, deadline), connection };
  }

  /**
   * A client of `connection` whose retries are shown through `onProgress` (see {@link connect}).
   * With `deadline`, no wait of the client (Retry-After, the rate limit, back-off) passes it.
   */
  async open(connection: Connection, onProgress?: (line: string) => void, deadline?: OperationDeadline): Promise<CmsClient> {
    const clientOptions = this.sources.settings().clientOptions;
    const extra = clientOptions?.onRetry;
    const onRetry: ClientOptions["onRetry"] =
      onProgress || extra
        ? (info) => {
            extra?.(info);
            onProgress?.(retryLine(info, connection.endpoint));
          }
        : undefined;
    const { createClient } = await loadClient();
    return createClient({
      ...clientOptions,
      ...(deadline ? { deadlineMs: deadline.ms, deadlineName: deadline.name } : {}),
      onRetry,
      endpoint: connection.endpoint,
      token: connection.token,
      runtime: this.sources.runtime,
    });
  }

  /**
   * Connect for an operation on an existing cluster (read, delete). When the token in use is
   * refused (401), try the later sources' tokens (see {@link alternativeTokens}), probing each once
   * with `probe` (a GET by default; reads probe through the shared pages, so the probe costs
   * nothing extra); the first that is not refused is used.
   */
  async connectExisting(
    explicit: ConnectionInputs | undefined,
    id: string,
    probe: (client: CmsClient) => Promise<unknown> = (client) => client.getCluster(id),
    onProgress?: (line: string) => void,
    deadline?: OperationDeadline,
  ): Promise<Connected> {
    const primary = await this.connect(explicit, onProgress, deadline);
    const alternatives = alternativeTokens(explicit, primary.connection.token, this.sources.configured(), this.env());
    if (alternatives.length === 0) return primary;
    try {
      await probe(primary.client);
      return primary;
    } catch (e) {
      if (statusOf(e) !== 401) return primary; // the real call will report it
    }
    for (const token of alternatives) {
      const connection = { endpoint: primary.connection.endpoint, token };
      const candidate = { connection, client: await this.open(connection, onProgress, deadline) };
      try {
        await probe(candidate.client);
        return candidate;
      } catch (e) {
        if (statusOf(e) !== 401) return candidate;
      }
    }
    return primary;
  }
}
