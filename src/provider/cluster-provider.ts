/**
 * The entry the serialized provider of every stack loads (`serializable.ts`): this file's path
 * (`dist/provider/cluster-provider.js`) and its `clusterProvider` export are the state contract
 * (CHANGELOG.md, "Versioning policy"). The provider itself is in `host.ts`.
 */
export { clusterProvider, createClusterProvider, type ClusterProvider, type ProviderSettings } from "./host";
