/**
 * The `/v1` route table: each path and method of the service, with its schemas, the permission it
 * needs, and the operation it calls (operations/); every other method on those paths answers 405.
 * What runs before a handler (counting, faults, authentication, rate limits) is server.ts's; what
 * an operation does to the clusters is operations/'s and model/state.ts's.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { METHODS } from "node:http";
import {
  clusterListSchema,
  clusterSchema,
  clusterSummarySchema,
  createBody,
  listQuery,
  noQuery,
  nodeListSchema,
  nodeSchema,
  updateBody,
} from "@pulumi-cms/contract";
import type { Principal } from "./auth";
import { ServiceError } from "./errors";
import { clusterJson } from "./wire-view";
import {
  createCluster,
  deleteCluster,
  getCluster,
  listClusterRecords,
  updateCluster,
  type CreateBody,
  type ListQuery,
  type UpdateBody,
} from "../operations/clusters";
import { getKubeconfig } from "../operations/kubeconfig";
import { getNode, listNodes } from "../operations/nodes";
import type { EmulatorState } from "../model/state";

/** Every method Node's parser accepts, but CONNECT (a proxy request, never a route). */
export const ALL_METHODS = METHODS.filter((m) => m !== "CONNECT");

/** The `/v1` routes, plus a 405 answer for every other method on the same paths. */
export function registerV1Routes(app: FastifyInstance, state: EmulatorState): void {
  const who = (req: FastifyRequest): Principal => {
    // The hook authenticates every route that has a permission; never serve one without.
    if (!req.principal)
      throw new ServiceError(401, "unauthorized", "The API token is missing or invalid: send Authorization: Bearer <API_TOKEN>");
    return req.principal;
  };
  type Params = { cluster_id: string; node_id: string };
  const routes: Record<string, Record<string, (app: FastifyInstance, url: string) => void>> = {
    "/v1/clusters": {
      GET: (a, url) =>
        a.get<{ Querystring: ListQuery }>(url, {
          schema: { querystring: listQuery, response: { 200: clusterListSchema } },
          config: { permission: "read", action: "listing clusters" },
          handler: async (req, reply) => {
            // Hot path: items are concatenated from per-cluster cached JSON.
            const page = listClusterRecords(state, who(req), req.query);
            const items = page.items.map(clusterJson).join(",");
            return reply
              .type("application/json; charset=utf-8")
              .send(`{"items":[${items}],"total":${page.total},"page":${page.page},"per_page":${page.per_page}}`);
          },
        }),
      POST: (a, url) =>
        a.post<{ Body: CreateBody }>(url, {
          schema: { querystring: noQuery, body: createBody, response: { 201: clusterSummarySchema } },
          config: { permission: "write", action: "creating a cluster", globalScope: true },
          handler: async (req, reply) => {
            const summary = await createCluster(state, who(req), req.body);
            return reply.code(201).header("location", `/v1/clusters/${summary.id}`).send(summary);
          },
        }),
    },
    "/v1/clusters/:cluster_id": {
      GET: (a, url) =>
        a.get<{ Params: Params }>(url, {
          schema: { querystring: noQuery, response: { 200: clusterSchema } },
          config: { permission: "read", action: "reading a cluster" },
          handler: async (req) => getCluster(state, who(req), req.params.cluster_id),
        }),
      PATCH: (a, url) =>
        a.patch<{ Params: Params; Body: UpdateBody }>(url, {
          schema: { querystring: noQuery, body: updateBody, response: { 200: clusterSchema } },
          config: { permission: "write", action: "modifying a cluster" },
          handler: async (req) => updateCluster(state, who(req), req.params.cluster_id, req.body),
        }),
      DELETE: (a, url) =>
        a.delete<{ Params: Params }>(url, {
          schema: { querystring: noQuery },
          config: { permission: "write", action: "deleting a cluster" },
          handler: async (req, reply) => {
            await deleteCluster(state, who(req), req.params.cluster_id);
            return reply.code(204).send();
          },
        }),
    },
    "/v1/clusters/:cluster_id/kubeconfig": {
      GET: (a, url) =>
        a.get<{ Params: Params }>(url, {
          schema: { querystring: noQuery },
          config: { permission: "read", action: "reading a kubeconfig" },
          handler: async (req, reply) =>
            reply.type("text/yaml; charset=utf-8").send(await getKubeconfig(state, who(req), req.params.cluster_id, req)),
        }),
    },
    "/v1/clusters/:cluster_id/nodes": {
      GET: (a, url) =>
        a.get<{ Params: Params }>(url, {
          schema: { querystring: noQuery, response: { 200: nodeListSchema } },
          config: { permission: "read", action: "listing nodes" },
          handler: async (req) => listNodes(state, who(req), req.params.cluster_id),
        }),
    },
    "/v1/clusters/:cluster_id/nodes/:node_id": {
      GET: (a, url) =>
        a.get<{ Params: Params }>(url, {
          schema: { querystring: noQuery, response: { 200: nodeSchema } },
          config: { permission: "read", action: "reading a node" },
          handler: async (req) => getNode(state, who(req), req.params.cluster_id, req.params.node_id),
        }),
    },
  };
  for (const [url, methods] of Object.entries(routes)) {
    for (const register of Object.values(methods)) register(app, url);
    const allowed = Object.keys(methods);
    const others = ALL_METHODS.filter((m) => !allowed.includes(m));
    app.route({
      method: others,
      url,
      config: { allow: allowed },
      // Never reached: the onRequest hook answers 405 first.
      handler: async () => {
        throw new ServiceError(405, "method_not_allowed", `Allowed: ${allowed.join(", ")}`);
      },
    });
  }
}
