/**
 * Auto-naming, the way Pulumi providers do it: when the program gives no `name`, the cluster is
 * named after the Pulumi resource plus a random suffix, so two stacks (or a create-before-delete
 * replacement) never collide, and the name always satisfies the API's rule.
 */
import { randomInt } from "node:crypto";

/** The API's rule for cluster names (letters, digits and hyphens). */
export const NAME_PATTERN = /^[A-Za-z0-9-]+$/;
/** Longest accepted name. */
export const NAME_MAX_LENGTH = 63;
/** Length of the random suffix of an auto-name. */
export const AUTONAME_SUFFIX_LENGTH = 7;
/** Used when nothing of the resource name survives sanitising. */
export const AUTONAME_FALLBACK_PREFIX = "cluster";

const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

/**
 * Turn a Pulumi resource name into something the API accepts as a name prefix: every run of
 * characters outside `[A-Za-z0-9-]` becomes one hyphen, hyphen runs collapse, leading and
 * trailing hyphens go, and the result is cut so that `-` plus the suffix still fits in 63.
 */
export function sanitizeNamePrefix(resourceName: string, maxLength = NAME_MAX_LENGTH - AUTONAME_SUFFIX_LENGTH - 1): string {
  const cleaned = String(resourceName ?? "")
    .replace(/[^A-Za-z0-9-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, maxLength)
    .replace(/-+$/g, "");
  return cleaned === "" ? AUTONAME_FALLBACK_PREFIX : cleaned;
}

/** Seven random lowercase letters or digits (crypto-random; `random` is injectable for tests). */
export function randomSuffix(random: (max: number) => number = randomInt): string {
  let out = "";
  for (let i = 0; i < AUTONAME_SUFFIX_LENGTH; i++) out += SUFFIX_ALPHABET[random(SUFFIX_ALPHABET.length)];
  return out;
}

/** A fresh auto-name: sanitised resource name, `-`, random suffix. Always valid for the API. */
export function autoName(resourceName: string, random?: (max: number) => number): string {
  return `${sanitizeNamePrefix(resourceName)}-${randomSuffix(random)}`;
}

/**
 * The resource name at the end of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`).
 * Dynamic provider methods are not told the resource name, so the Cluster resource passes its
 * URN as a hidden input and check reads the name from it. Returns undefined for anything that
 * is not a URN.
 */
export function resourceNameFromUrn(urn: unknown): string | undefined {
  if (typeof urn !== "string" || !urn.startsWith("urn:pulumi:")) return undefined;
  const parts = urn.split("::");
  // stack (inside the first part), project, type, then the name, which may itself contain "::".
  if (parts.length < 4) return undefined;
  const name = parts.slice(3).join("::");
  return name === "" ? undefined : name;
}

/** Why `name` breaks the API's rule, or undefined when it is valid. */
export function nameProblem(name: unknown): string | undefined {
  if (typeof name !== "string") return `name must be a string, got ${describeType(name)}`;
  if (name.length < 1 || name.length > NAME_MAX_LENGTH) {
    return `name must be 1-${NAME_MAX_LENGTH} characters long, got ${name.length}`;
  }
  if (!NAME_PATTERN.test(name)) {
    return `name may contain only letters, digits and hyphens (^[A-Za-z0-9-]+$), got "${name}"`;
  }
  return undefined;
}

function describeType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}
