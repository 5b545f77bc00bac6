/**
 * The HTTP client of the Cluster Management Service v1 API, as the package exposes it
 * (`cms.client`): the client, its options, its errors and the predicates over them. The
 * building blocks behind it (retry decisions, the limiter, header parsing) are internal.
 *
 * ```ts
 * import * as cms from "pulumi-cms";
 * const api = cms.client.createClient({ endpoint: "https://cms.example.com", token: process.env.CMS_TOKEN! });
 * const clusters = await api.listAllClusters();
 * ```
 *
 * @module client
 */
export { CmsClient, createClient, type CreateOptions } from "./client";
export type { CallOptions } from "./budget";
export type { ClientOptions, RetryInfo } from "./options";
export * from "./errors";
export type { NameProof } from "../shared/domain/ownership";
export type * from "./wire-types";
