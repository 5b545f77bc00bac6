/**
 * The `/_emulator/` HTTP routes: the control API over HTTP, guarded by the admin token.
 * Service tokens are refused here (403), anything else 401. These routes are not counted,
 * rate limited or affected by faults.
 */
import type { FastifyInstance } from "fastify";
import { bearer, tryAuthenticate } from "../http/auth";
import { ServiceError, validationFailed } from "../http/errors";
import type { ControlExtras } from "./in-process";
import type { EmulatorState } from "../model/state";
import type { EmulatorControl, FaultSpec, NewTokenSpec, Timings } from "../types";

type Body = Record<string, unknown> | undefined;
type Params = { cluster_id: string };

function object(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw validationFailed("Request body must be a JSON object");
  return body as Record<string, unknown>;
}

export function registerControlRoutes(
  app: FastifyInstance,
  state: EmulatorState,
  adminToken: string,
  control: EmulatorControl & ControlExtras,
): void {
  void app.register(
    async (ctl) => {
      ctl.addHook("onRequest", async (req) => {
        const token = bearer(req.headers.authorization);
        if (token === adminToken) return;
        // A valid service token is the wrong kind (403); an expired or unknown one is no token (401).
        if (tryAuthenticate(state.tokens, req.headers.authorization, state.now())) {
          throw new ServiceError(
            403,
            "forbidden",
            "Insufficient permissions: the control API needs the emulator's admin token, not a service token",
          );
        }
        throw new ServiceError(
          401,
          "unauthorized",
          "The admin token is missing, invalid or expired: send Authorization: Bearer <adminToken>",
        );
      });
      // Every answer has a JSON body, so a console call can be read (and piped to jq) like any other.
      type Reply = { code(n: number): { send(b?: unknown): unknown } };
      const answer = async (p: Promise<unknown>, body: unknown, reply: Reply) => {
        await p;
        return reply.code(200).send(body);
      };
      /** A console action on a cluster answers with the cluster as it is right after the action. */
      const onCluster = async (id: string, p: Promise<unknown>, reply: Reply) => {
        await p;
        const cluster = (await control.clusters()).find((c) => c.id === id);
        return reply.code(200).send(cluster ?? { id, gone: true });
      };

      ctl.post("/reset", async (_req, reply) => answer(control.reset(), { reset: true }, reply));
      ctl.get("/faults", async () => ({ items: await control.faults() }));
      ctl.post<{ Body: Body }>("/faults", async (req, reply) =>
        reply.code(201).send(await control.injectFault(object(req.body) as unknown as FaultSpec)),
      );
      ctl.delete("/faults", async (_req, reply) => answer(control.clearFaults(), { items: [] }, reply));
      ctl.post<{ Body: Body }>("/fail-next", async (req, reply) => {
        const { operation } = object(req.body);
        return answer(control.failNext(operation as "create" | "update"), { failNext: operation }, reply);
      });
      ctl.post<{ Body: Body; Params: Params }>("/clusters/:cluster_id/scale", async (req, reply) =>
        onCluster(req.params.cluster_id, control.scale(req.params.cluster_id, object(req.body).workers as number), reply),
      );
      ctl.post<{ Body: Body; Params: Params }>("/clusters/:cluster_id/resize", async (req, reply) =>
        onCluster(req.params.cluster_id, control.resize(req.params.cluster_id, object(req.body).node_size as string), reply),
      );
      ctl.post<{ Body: Body; Params: Params }>("/clusters/:cluster_id/upgrade", async (req, reply) =>
        onCluster(req.params.cluster_id, control.upgrade(req.params.cluster_id, object(req.body).kubernetes_version as string), reply),
      );
      ctl.delete<{ Params: Params }>("/clusters/:cluster_id", async (req, reply) =>
        onCluster(req.params.cluster_id, control.deleteCluster(req.params.cluster_id), reply),
      );
      ctl.post<{ Params: Params }>("/clusters/:cluster_id/rotate-kubeconfig", async (req, reply) =>
        onCluster(req.params.cluster_id, control.rotateKubeconfig(req.params.cluster_id), reply),
      );
      ctl.get("/clusters", async () => ({ items: await control.clusters() }));
      ctl.get("/request-counts", async () => control.requestCounts());
      ctl.delete("/request-counts", async (_req, reply) => answer(control.resetRequestCounts(), {}, reply));
      ctl.post<{ Body: Body }>("/tokens", async (req, reply) =>
        reply.code(201).send({ added: true, ...(await control.addToken(object(req.body) as unknown as NewTokenSpec)) }),
      );
      ctl.delete<{ Body: Body }>("/tokens", async (req, reply) => {
        const { token } = object(req.body);
        if (typeof token !== "string" || token === "") throw validationFailed("token must be a non-empty string");
        return answer(control.revokeToken(token), { revoked: true }, reply);
      });
      ctl.get("/timings", async () => control.timings());
      ctl.patch<{ Body: Body }>("/timings", async (req) => {
        await control.setTimings(object(req.body) as Timings);
        return control.timings();
      });
      ctl.get("/stats", async () => control.stats());
    },
    { prefix: "/_emulator" },
  );
}
