/**
 * The package schema of the native plugin (`cms`): the Cluster resource, the lookups as functions,
 * and the provider's configuration. YAML programs type-check against it; the Go SDK in `sdk/go`
 * and the Node.js SDK in `sdk/nodejs` (`pulumi-cms/native`) are generated from it
 * (`npm run gen:sdk`). Property names are the dynamic face's, so one program reads the same in
 * either face.
 */
import {
  CLUSTER_FIELDS,
  CLUSTER_STATUSES,
  clusterArguments,
  clusterFieldsWhere,
  type Field,
  listed,
  NODE_FIELDS,
} from "@pulumi-cms/contract";

const str = (description: string, extra: Record<string, unknown> = {}) => ({ type: "string", description, ...extra });
const int = (description: string) => ({ type: "integer", description });
const oneOf = (values: readonly string[]) => values.join(", ");

const CONNECTION = {
  description: "Explicit endpoint and token for one resource or call; each overrides the provider's configuration.",
  type: "object",
  properties: {
    endpoint: str("Base URL of the service, without `/v1`. Default: the provider's `endpoint`, then `CMS_ENDPOINT`."),
    token: str("API token, always stored as a secret. Default: the provider's `token`, then `CMS_TOKEN`.", { secret: true }),
  },
};

/**
 * The properties of `fields` for which `keep` holds, as the schema describes them (`argument`: as
 * arguments), in the order of `fields`. The one object field, `connection`, is the Connection type.
 */
function properties(fields: Record<string, Field>, keep: (field: Field) => boolean, argument = false): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(fields)) {
    if (!keep(f)) continue;
    const description = (argument && f.argument) || f.description;
    props[name] =
      f.type === "object"
        ? { $ref: "#/types/cms:index:Connection", description }
        : { type: f.type, description, ...(f.secret === true ? { secret: true } : {}) };
  }
  return props;
}

/** The outputs always present, and the arguments a program must give (`@pulumi-cms/contract`'s fields.ts). */
const REQUIRED_OUTPUTS = clusterFieldsWhere((f) => f.output === "required");
const REQUIRED_INPUTS = clusterFieldsWhere((f) => f.input === "required");
/** The arguments updated in place, as the resource's description names them. */
const IN_PLACE = clusterArguments((f) => f.onChange === "update").map((name) => `\`${name}\``);

const CLUSTER_INPUTS = properties(Object.fromEntries(clusterArguments().map((name) => [name, CLUSTER_FIELDS[name]])), () => true, true);

const CLUSTER_INFO = {
  description: "A cluster as the service reports it.",
  type: "object",
  properties: properties(CLUSTER_FIELDS, (f) => f.wire !== undefined),
  required: ["id", ...REQUIRED_OUTPUTS],
};
const CLUSTER_INFO_REF = { $ref: "#/types/cms:index:ClusterInfo" };
const NODE_INFO = {
  description: "A node as the service reports it.",
  type: "object",
  properties: properties(NODE_FIELDS, () => true),
  required: Object.keys(NODE_FIELDS),
};

const CONNECTION_ARG = { $ref: "#/types/cms:index:Connection", description: "Explicit endpoint and token for this call." };
const fn = (description: string, inputs: Record<string, unknown>, required: string[], outputs: unknown) => ({
  description,
  inputs: { properties: { ...inputs, connection: CONNECTION_ARG }, required },
  outputs,
});

/** The plugin's releases, as the engine names a GitHub owner's releases. */
export const PLUGIN_DOWNLOAD_URL = "github://api.github.com/pulumi-cms";

/** The schema, for a plugin of version `version`. */
export function packageSchema(version: string): Record<string, unknown> {
  return {
    name: "cms",
    displayName: "Cluster Management Service",
    version,
    description: "Managed Kubernetes clusters of the Cluster Management Service.",
    keywords: ["pulumi", "kubernetes", "category/cloud", "kind/native"],
    license: "Apache-2.0",
    repository: "https://github.com/pulumi-cms/pulumi-cms",
    publisher: "pulumi-cms",
    // Where the engine fetches the plugin when a program needs it and it is not installed: the
    // project's GitHub releases (repository pulumi-cms/pulumi-cms, the `pulumi-<name>` of this
    // owner), whose assets are the archives `npm run release` writes. The SDKs carry it.
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    config: {
      variables: {
        endpoint: str("Base URL of the service, without `/v1`. Default: `CMS_ENDPOINT`."),
        token: str("API token; set it with `pulumi config set --secret cms:token`. Default: `CMS_TOKEN`.", { secret: true }),
      },
    },
    provider: {
      description: "The provider of the Cluster Management Service: where it is and the token to use.",
      inputProperties: {
        endpoint: str("Base URL of the service, without `/v1`. Default: `CMS_ENDPOINT`."),
        token: str("API token, stored as a secret. Default: `CMS_TOKEN`.", { secret: true }),
      },
    },
    types: {
      "cms:index:Connection": CONNECTION,
      "cms:index:ClusterInfo": CLUSTER_INFO,
      "cms:index:NodeInfo": NODE_INFO,
    },
    resources: {
      "cms:index:Cluster": {
        description: `A Kubernetes cluster of the Cluster Management Service. Created and waited for until \`running\`; ${listed(IN_PLACE)} change in place, every other input replaces the cluster. The kubeconfig is a secret.`,
        inputProperties: CLUSTER_INPUTS,
        requiredInputs: REQUIRED_INPUTS,
        properties: properties(CLUSTER_FIELDS, (f) => f.output !== undefined),
        required: REQUIRED_OUTPUTS,
      },
    },
    functions: {
      "cms:index:getCluster": fn("One cluster by id.", { id: str("Cluster id, `cls_...`.") }, ["id"], CLUSTER_INFO),
      "cms:index:getClusters": fn(
        "Every cluster the token can see, optionally only those in one status.",
        { status: str(`Keep only clusters with this status: ${oneOf(CLUSTER_STATUSES)}.`) },
        [],
        {
          type: "object",
          properties: { clusters: { type: "array", items: CLUSTER_INFO_REF, description: "The clusters, oldest first." } },
          required: ["clusters"],
        },
      ),
      "cms:index:getNodes": fn("The nodes of a cluster.", { clusterId: str("Cluster id, `cls_...`.") }, ["clusterId"], {
        type: "object",
        properties: {
          clusterId: str("The cluster the nodes belong to."),
          nodes: { type: "array", items: { $ref: "#/types/cms:index:NodeInfo" }, description: "Control planes first, then workers." },
          total: int("Node count reported by the service."),
        },
        required: ["clusterId", "nodes", "total"],
      }),
      "cms:index:getNode": fn(
        "One node of a cluster.",
        { clusterId: str("Cluster id, `cls_...`."), nodeId: str("Node id, `node_...`.") },
        ["clusterId", "nodeId"],
        NODE_INFO,
      ),
      "cms:index:getKubeconfig": fn(
        "The admin kubeconfig of a cluster.",
        {
          clusterId: str("Cluster id, `cls_...`."),
          credential: str(
            "`static` (default): the kubeconfig as the service sends it, with the cluster's credential, which a rotation in the console makes stale. " +
              "`exec`: the same kubeconfig whose user runs `pulumi-resource-cms kubeconfig exec-credential` (this plugin's executable, by absolute path) to fetch the current credential at each use, " +
              "so a credential rotated in the console needs nothing done; for the `kubeconfig` of a Kubernetes provider. " +
              "It records the token of the call's `connection` or of the provider's configuration (encrypted, as the kubeconfig is a secret), never `CMS_TOKEN`, which the command reads from its environment.",
          ),
        },
        ["clusterId"],
        {
          type: "object",
          properties: {
            clusterId: str("The cluster the kubeconfig reaches."),
            kubeconfig: str("Kubeconfig YAML.", { secret: true }),
          },
          required: ["clusterId", "kubeconfig"],
        },
      ),
    },
    language: {
      go: {
        importBasePath: "github.com/pulumi-cms/pulumi-cms/sdk/go/cms",
        generateResourceContainerTypes: true,
        respectSchemaVersion: true,
      },
      // Compiled into the package as `pulumi-cms/native` (tsconfig.native.json); the version
      // the SDK asks the engine for is the package's own.
      nodejs: {
        packageName: "pulumi-cms/native",
        packageDescription: "The native face of pulumi-cms: cms:index:Cluster and its functions, served by pulumi-resource-cms.",
        respectSchemaVersion: true,
      },
    },
  };
}
