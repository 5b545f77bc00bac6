/**
 * Auto-naming: when the program gives no `name`, the cluster is named after the Pulumi resource
 * plus a 7-character suffix, and the name always satisfies the API's rule.
 *
 * The suffix is derived, not drawn at random, from the resource's URN (which holds the project
 * and the stack), a generation number and the stack's seed: 128 random bits drawn once per stack
 * and recorded in its state (`resources/autoname-seed.ts`) before its first auto-named create.
 * - `pulumi preview` shows the very name `pulumi up` creates (once the seed is recorded; a brand
 *   new stack's first preview shows the name as computed);
 * - a run that is killed after its POST leaves a cluster whose name the next run computes again,
 *   so the next run finds it instead of creating a second one (see `adoption.ts`);
 * - no other stack can compute the name, not even a twin with the same project, stack and
 *   resource names in another backend: a cluster carrying it is this resource's (the proof
 *   `shared/domain/ownership.ts` accepts);
 * - a replacement that creates before deleting takes the next generation, so the new cluster's
 *   name differs from the old one's.
 * Clusters named by release 0.2.0 (URN and generation only, no seed) keep their names; such a
 * name proves nothing, since a twin stack computes it too.
 */
import { createHash, randomInt } from "node:crypto";

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

/** A random auto-name: sanitised resource name, `-`, random suffix. Used only without a URN. */
export function autoName(resourceName: string, random?: (max: number) => number): string {
  return `${sanitizeNamePrefix(resourceName)}-${randomSuffix(random)}`;
}

/** Generations {@link autoNameGeneration} looks through to recognise a derived name. */
export const MAX_AUTONAME_GENERATION = 1_000;

/** The shape of a stack's seed: 32 lowercase hex digits (128 bits). */
export const SEED_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The auto-name of the resource `urn` at `generation` (0 for its first cluster, one more for each
 * replacement that needs a fresh name): sanitised resource name, `-`, seven characters of
 * SHA-256 over the URN, the generation and the stack's `seed`. Same inputs, same name, in every
 * process. Without a seed, the name of release 0.2.0 (kept for the clusters it named).
 */
export function derivedAutoName(urn: string, generation = 0, seed?: string): string {
  const material = seed === undefined ? `${urn}\n${generation}` : `${urn}\n${generation}\n${seed}`;
  const digest = createHash("sha256").update(material).digest();
  let suffix = "";
  for (let i = 0; i < AUTONAME_SUFFIX_LENGTH; i++) suffix += SUFFIX_ALPHABET[digest[i] % SUFFIX_ALPHABET.length];
  return `${sanitizePrefix(urn)}-${suffix}`;
}

/**
 * The generation whose {@link derivedAutoName} is `name` (with `seed`, or without one: 0.2.0's
 * names), or undefined when `name` was not derived from `urn` (a random name of release 0.1.0, or
 * a name the user chose).
 */
export function autoNameGeneration(urn: string, name: unknown, seed?: string): number | undefined {
  if (typeof name !== "string" || !name.startsWith(`${sanitizePrefix(urn)}-`)) return undefined;
  for (let g = 0; g <= MAX_AUTONAME_GENERATION; g++) {
    if ((seed !== undefined && derivedAutoName(urn, g, seed) === name) || derivedAutoName(urn, g) === name) return g;
  }
  return undefined;
}

/**
 * True when `name` is derived from `urn` and `seed`: the evidence that a cluster carrying it is
 * this resource's (see `shared/domain/ownership.ts`).
 */
export function isSeededAutoName(urn: unknown, name: unknown, seed: unknown): boolean {
  if (typeof urn !== "string" || typeof seed !== "string" || !SEED_PATTERN.test(seed) || typeof name !== "string") return false;
  if (!name.startsWith(`${sanitizePrefix(urn)}-`)) return false;
  for (let g = 0; g <= MAX_AUTONAME_GENERATION; g++) if (derivedAutoName(urn, g, seed) === name) return true;
  return false;
}

/**
 * The generation a replacement of a cluster named `previousName` takes: the one after it, so the
 * new name differs from the old one. A name not derived from `urn` (0.1.0's random names) is
 * followed by generation 0, or 1 in the unlikely case that generation 0 gives that very name.
 */
export function nextAutoNameGeneration(urn: string, previousName: unknown, seed?: string): number {
  const g = autoNameGeneration(urn, previousName, seed);
  return g === undefined ? 0 : g + 1;
}

function sanitizePrefix(urn: string): string {
  return sanitizeNamePrefix(resourceNameFromUrn(urn) ?? AUTONAME_FALLBACK_PREFIX);
}

/**
 * The resource name at the end of a URN (`urn:pulumi:<stack>::<project>::<type>::<name>`).
 * The operations are told the URN (each host finds it in what its engine gives), not the
 * resource name: check reads the name from it. Returns undefined for anything that is not a URN.
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
