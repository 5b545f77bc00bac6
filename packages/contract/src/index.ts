/**
 * What the provider (`pulumi-cms`) and the emulator (`@pulumi-cms/emulator`) both hold to: the
 * declaration of a Cluster's and a Node's fields, the wire types and JSON schemas of the service's
 * v1 API made from it, the clock, and two small helpers. It imports nothing of either package.
 *
 * @module
 */
export * from "./values";
export * from "./wire-types";
export * from "./contract";
export * from "./fields";
export * from "./clock";
export * from "./omit-undefined";
export * from "./process-singleton";
