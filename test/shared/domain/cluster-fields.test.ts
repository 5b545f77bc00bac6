/**
 * Every description of a Cluster against its one declaration (``@pulumi-cms/contract`'s fields.ts`):
 * each field's name, type, optionality, secrecy and what changing it does. The types are compared
 * at compile time (`npm run lint` type-checks this file: a mismatch is a type error on one of the
 * `expectTypeOf` lines), the schemas and lists at run time.
 */
import fs from "node:fs";
import type * as pulumi from "@pulumi/pulumi";
import * as contract from "@pulumi-cms/contract";
import {
  type ApiCluster,
  type ApiClusterList,
  type ApiClusterSummary,
  type ApiNodeList,
  CLUSTER_FIELDS,
  type ClusterFieldName,
  clusterFieldsWhere,
  clusterListSchema,
  clusterSchema,
  clusterSummarySchema,
  createBody,
  type CreateClusterRequest,
  type Field,
  nodeListSchema,
  type UpdateClusterRequest,
  updateBody,
} from "@pulumi-cms/contract";
import { describe, expect, expectTypeOf, it } from "vitest";
import { FIELD_TYPES_FILE, fieldTypesSource, RESOURCE_TYPES_FILE, resourceTypesSource } from "../../../scripts/gen-field-types.mjs";
import { PACKAGE_VERSION } from "../../../src/client/version";
import { isSecret, markSecrets } from "../../../src/hosts/native/properties";
import { packageSchema } from "../../../src/hosts/native/schema";
import type { ClusterInputs, ClusterOutputs } from "../../../src/provider/types";
import { REPLACE_PROPERTIES, UPDATABLE_PROPERTIES } from "../../../src/provider/types";
import type { Cluster, ClusterArgs } from "../../../src/resources/cluster";

import type { ClusterAttributes, ClusterInfo } from "../../../src/shared/domain/cluster-info";

// ------------------------------------------------------------------------- the types, at compile time

type F = typeof CLUSTER_FIELDS;
type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
type KindOf<T> = [NonNullable<T>] extends [string] ? "string" : [NonNullable<T>] extends [number] ? "integer" : "object";
/** Each property's JSON type, optional or not. */
type Kinds<T> = { -readonly [K in keyof T]-?: KindOf<T[K]> };
/** Without the hidden properties (`__urn`...), which are the dynamic host's, not the Cluster's. */
type Visible<T> = { [K in keyof T as K extends `__${string}` ? never : K]: T[K] };
/** The fields whose declaration has `P`. */
type Where<P> = { [K in keyof F]: F[K] extends P ? K : never }[keyof F];
type WireName<K extends keyof F> = F[K] extends { wire: infer W extends string } ? W : never;
/** The fields with `P`, under their wire names, with their JSON types. */
type WireShape<P> = { [K in Where<P> as WireName<K>]: F[K]["type"] };
/** The fields with `P`, under their camelCase names, with their JSON types. */
type CamelShape<P> = { [K in Where<P>]: F[K]["type"] };

/** The Cluster's Output properties (not the resource's own `urn` and `id`), unwrapped. */
type ClassOutputs = {
  -readonly [K in keyof Cluster as Cluster[K] extends pulumi.Output<unknown> ? (K extends "urn" | "id" ? never : K) : never]: KindOf<
    pulumi.Unwrap<Cluster[K]>
  >;
};
type ArgKinds = { [K in keyof ClusterArgs]-?: KindOf<pulumi.Unwrap<ClusterArgs[K]>> };

/** The keys of a listing's schema that are not required, as the list types must leave them optional. */
const LIST_OPTIONAL = { clusters: ["total", "page", "per_page"], nodes: ["total"] } as const;

describe("the generated camelCase types", () => {
  it("are what the declaration generates (else: npm run gen)", () => {
    expect(fs.readFileSync(FIELD_TYPES_FILE, "utf8") === fieldTypesSource(contract), "run npm run gen").toBe(true);
    expect(fs.readFileSync(RESOURCE_TYPES_FILE, "utf8") === resourceTypesSource(contract), "run npm run gen").toBe(true);
  });
});

describe("the types", () => {
  it("are the declaration's, field by field (checked by npm run lint's type-check)", () => {
    // The wire: the full cluster, with `infra_id` alone optional; the create's summary.
    expectTypeOf<Kinds<ApiCluster>>().toEqualTypeOf<WireShape<{ wire: string }>>();
    expectTypeOf<OptionalKeys<ApiCluster>>().toEqualTypeOf<WireName<Where<{ reported: "maybe" }>>>();
    expectTypeOf<Kinds<ApiClusterSummary>>().toEqualTypeOf<WireShape<{ reported: "summary" }>>();
    expectTypeOf<OptionalKeys<ApiClusterSummary>>().toEqualTypeOf<never>();
    expectTypeOf<OptionalKeys<ApiClusterList>>().toEqualTypeOf<(typeof LIST_OPTIONAL.clusters)[number]>();
    expectTypeOf<OptionalKeys<ApiNodeList>>().toEqualTypeOf<(typeof LIST_OPTIONAL.nodes)[number]>();
    // The requests: the create every argument on the wire, optional those it may leave out; the PATCH what updates in place.
    expectTypeOf<Kinds<CreateClusterRequest>>().toEqualTypeOf<WireShape<{ wire: string; input: string }>>();
    expectTypeOf<OptionalKeys<CreateClusterRequest>>().toEqualTypeOf<
      WireName<Where<{ wire: string } & ({ input: "optional" } | { default: unknown })>>
    >();
    expectTypeOf<Kinds<UpdateClusterRequest>>().toEqualTypeOf<WireShape<{ onChange: "update" }>>();
    expectTypeOf<OptionalKeys<UpdateClusterRequest>>().toEqualTypeOf<WireName<Where<{ onChange: "update" }>>>();
    // camelCase: the lookups' results and the attributes the outputs share.
    expectTypeOf<Kinds<ClusterInfo>>().toEqualTypeOf<CamelShape<{ wire: string }>>();
    expectTypeOf<OptionalKeys<ClusterInfo>>().toEqualTypeOf<Where<{ wire: string; output: "optional" }>>();
    expectTypeOf<Kinds<ClusterAttributes>>().toEqualTypeOf<CamelShape<{ wire: string; output: string }>>();
    // The core's inputs (after check: defaulted ones are set) and outputs.
    expectTypeOf<Kinds<Visible<ClusterInputs>>>().toEqualTypeOf<CamelShape<{ input: string }>>();
    expectTypeOf<OptionalKeys<Visible<ClusterInputs>>>().toEqualTypeOf<Where<{ input: "optional" }>>();
    expectTypeOf<Kinds<Visible<ClusterOutputs>>>().toEqualTypeOf<CamelShape<{ output: string }>>();
    expectTypeOf<OptionalKeys<Visible<ClusterOutputs>>>().toEqualTypeOf<Where<{ output: "optional" }>>();
    // The resource: its arguments, and its outputs but the connection (it holds the token).
    expectTypeOf<ArgKinds>().toEqualTypeOf<CamelShape<{ input: string }>>();
    expectTypeOf<OptionalKeys<ClusterArgs>>().toEqualTypeOf<Where<{ input: "optional" | "defaulted" }>>();
    expectTypeOf<ClassOutputs>().toEqualTypeOf<Omit<CamelShape<{ output: string }>, "connection">>();
  });
});

// --------------------------------------------------------------------------- the schemas, at run time

const entries = Object.entries(CLUSTER_FIELDS) as [ClusterFieldName, Field][];
const where = clusterFieldsWhere;
const sorted = (list: readonly string[]) => [...list].sort();

interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  description?: string;
  secret?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

/** The JSON type a schema property says, `object` for a reference to an object type. */
function typeOf(schema: JsonSchema): unknown {
  return schema.$ref !== undefined ? "object" : schema.type;
}

describe("the wire contract's cluster schemas", () => {
  const wired = entries.filter(([, f]) => f.wire !== undefined);
  const props = clusterSchema.properties as Record<string, JsonSchema>;

  it("have a property for every field on the wire, of its type, and no other", () => {
    expect(sorted(Object.keys(props))).toEqual(sorted(wired.map(([, f]) => f.wire as string)));
    for (const [, f] of wired) {
      // A field the service may not return may also come as null.
      expect(props[f.wire as string].type, f.wire).toEqual(f.reported === "maybe" ? [f.type, "null"] : f.type);
    }
  });

  it("require what the service always reports, the create's summary only its fields", () => {
    expect(sorted(clusterSchema.required)).toEqual(
      sorted(wired.filter(([, f]) => f.reported !== "maybe").map(([, f]) => f.wire as string)),
    );
    const summary = wired.filter(([, f]) => f.reported === "summary").map(([, f]) => f.wire as string);
    expect(sorted(Object.keys(clusterSummarySchema.properties))).toEqual(sorted(summary));
    expect(sorted(clusterSummarySchema.required)).toEqual(sorted(summary));
  });

  it("leave optional in a listing what its type leaves optional", () => {
    const optional = (s: { properties: object; required: string[] }) => Object.keys(s.properties).filter((k) => !s.required.includes(k));
    expect(optional(clusterListSchema)).toEqual(LIST_OPTIONAL.clusters);
    expect(optional(nodeListSchema)).toEqual(LIST_OPTIONAL.nodes);
  });
});

describe("the wire contract's request schemas", () => {
  const wire = (keep: (f: Field) => boolean) =>
    sorted(entries.filter(([, f]) => f.wire !== undefined && keep(f)).map(([, f]) => f.wire as string));

  it("take every argument on the wire, of its type, requiring those the service does not default", () => {
    const props = createBody.properties as Record<string, JsonSchema>;
    expect(sorted(Object.keys(props))).toEqual(wire((f) => f.input !== undefined));
    for (const [, f] of entries.filter(([, f]) => f.wire !== undefined && f.input !== undefined)) {
      expect(props[f.wire as string].type, f.wire).toBe(f.type);
    }
    expect(sorted(createBody.required)).toEqual(wire((f) => f.input !== undefined && f.input !== "optional" && f.default === undefined));
  });

  it("let PATCH change exactly what updates in place", () => {
    expect(sorted(Object.keys(updateBody.properties))).toEqual(wire((f) => f.onChange === "update"));
  });
});

describe("the native schema's Cluster", () => {
  const schema = packageSchema(PACKAGE_VERSION) as {
    types: Record<string, JsonSchema>;
    resources: Record<string, { inputProperties: Record<string, JsonSchema>; requiredInputs: string[] } & JsonSchema>;
  };
  const resource = schema.resources["cms:index:Cluster"];
  const outputs = resource.properties as Record<string, JsonSchema>;

  it("takes every argument, of its type, requiring the required ones", () => {
    expect(sorted(Object.keys(resource.inputProperties))).toEqual(sorted(where((f) => f.input !== undefined)));
    for (const name of where((f) => f.input !== undefined))
      expect(typeOf(resource.inputProperties[name]), name).toBe(CLUSTER_FIELDS[name].type);
    expect(resource.requiredInputs).toEqual(where((f) => f.input === "required"));
  });

  it("says of every argument what changing it does", () => {
    for (const [name, f] of entries.filter(([, f]) => f.onChange !== undefined)) {
      const description = resource.inputProperties[name].description;
      expect(description, name).toContain(f.onChange === "replace" ? "Changing it replaces the cluster." : "Updated in place.");
    }
  });

  it("reports every output, of its type, requiring the ones always present", () => {
    expect(sorted(Object.keys(outputs))).toEqual(sorted(where((f) => f.output !== undefined)));
    for (const name of where((f) => f.output !== undefined)) expect(typeOf(outputs[name]), name).toBe(CLUSTER_FIELDS[name].type);
    expect(resource.required).toEqual(where((f) => f.output === "required"));
  });

  it("marks secret exactly the secret fields", () => {
    for (const [name, f] of entries.filter(([, f]) => f.output !== undefined)) {
      expect(outputs[name].secret === true, name).toBe(f.secret === true);
      if (f.secret === "token") {
        const type = schema.types[(outputs[name].$ref as string).replace("#/types/", "")];
        expect(type.properties?.token.secret, name).toBe(true);
      }
    }
  });

  it("gives the lookups' ClusterInfo the id and every field on the wire, of its type", () => {
    const info = schema.types["cms:index:ClusterInfo"];
    const fields = where((f) => f.wire !== undefined);
    expect(sorted(Object.keys(info.properties ?? {}))).toEqual(sorted(fields));
    for (const name of fields) expect(typeOf(info.properties?.[name] ?? {}), name).toBe(CLUSTER_FIELDS[name].type);
    expect(info.required).toEqual(["id", ...where((f) => f.output === "required")]);
  });
});

describe("the hosts and the core", () => {
  it("update in place exactly what updates, and replace for the rest", () => {
    expect(sorted(UPDATABLE_PROPERTIES)).toEqual(sorted(where((f) => f.onChange === "update")));
    expect(sorted(REPLACE_PROPERTIES)).toEqual(sorted(where((f) => f.onChange === "replace")));
  });

  it("the native host stores every secret field as a secret, and nothing else", () => {
    const props = Object.fromEntries(entries.map(([name, f]) => [name, f.type === "object" ? { endpoint: "https://x", token: "t" } : "v"]));
    const marked = markSecrets(props);
    for (const [name, f] of entries) {
      const value = marked[name] as Record<string, unknown>;
      expect(isSecret(value), name).toBe(f.secret === true);
      if (f.type === "object") expect(isSecret(value.token), `${name}.token`).toBe(f.secret === "token");
    }
  });
});
