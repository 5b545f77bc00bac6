/**
 * The entry the serialized providers load (`entry.ts` in this release; the code stored by 0.1.0 and
 * 0.2.0 requires it directly): this file's path (`dist/provider/cluster-provider.js`) and its
 * `clusterProvider` export are the state contract (CHANGELOG.md, "Versioning policy"), which is
 * why it stays here, a re-export of the dynamic-provider host (`hosts/dynamic/provider.ts`).
 */
import "../hosts/dynamic/compile-cache"; // first: see that module
export { clusterProvider, createClusterProvider, type ClusterProvider, type ProviderSettings } from "../hosts/dynamic/provider";
