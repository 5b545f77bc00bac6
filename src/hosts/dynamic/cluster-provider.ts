/**
 * The implementation the serialized providers load: the default provider of the dynamic host
 * (`provider.ts`), through the pinned `dist/provider/cluster-provider.js` (a generated stub
 * re-exporting this module's; `PINNED_MODULES` in `serializable.ts`), which the entry
 * (`entry.ts`) requires on its first call and the provider texts of 0.1.0 and 0.2.0 require
 * directly. Its `clusterProvider` export is the state contract (CHANGELOG.md, "Versioning policy").
 */
import "./compile-cache"; // first: see that module
export { clusterProvider, createClusterProvider, type ClusterProvider, type ProviderSettings } from "./provider";
