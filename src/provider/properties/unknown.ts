/**
 * During a preview an input computed from another resource's output is not known yet. The Node
 * dynamic-provider host hands such a value to `check` and `diff` as this sentinel string
 * (`unknownValue` in @pulumi/pulumi's runtime/rpc; a test pins the two together).
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when the value is the preview-time "unknown" sentinel. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/** True when the value or anything inside it is unknown. */
export function containsUnknown(value: unknown): boolean {
  if (isUnknown(value)) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}
