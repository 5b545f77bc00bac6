/**
 * The rules a host reads the core's typed requests by, from the fields' declaration
 * (`@pulumi-cms/contract`): what each property of the checked inputs and of the recorded outputs
 * must be. Both hosts hold every bag after check to them (`dynamic/requests.ts`,
 * `native/requests.ts`): the program's inputs reach check as they came (check judges them and a
 * wrong value is a check failure), but every later call carries what check returned or the outputs
 * this provider recorded, and a value there of another type is an engine-side bug or a damaged
 * state. The call then fails naming the request, the property and the rule, before any request to
 * the service, and never showing the value (it may be a secret).
 */
import { CLUSTER_FIELDS, clusterArguments, clusterFieldsWhere, type Field } from "@pulumi-cms/contract";
import type { ConnectionInputs } from "../connection";
import type { Previewed } from "../provider/operations/requests";
import { UNKNOWN } from "../provider/properties/unknown";
import type { ClusterInputs, ClusterOutputs, RecordedFields } from "../provider/types";
import { InvalidArgumentError } from "../shared/errors/invalid-argument-error";

/** What a property must be: its rule in words, and the test. */
interface Rule {
  rule: string;
  holds(value: unknown): boolean;
}

const STRING: Rule = { rule: "a string", holds: (v) => typeof v === "string" };
const INTEGER: Rule = { rule: "an integer", holds: (v) => Number.isInteger(v) };
const BOOLEAN: Rule = { rule: "a boolean", holds: (v) => typeof v === "boolean" };
const CONNECTION: Rule = { rule: "an object of strings endpoint and token", holds: (v) => connectionProblem(v, true) === undefined };

/** A field's rule: its JSON type, and in checked inputs one of its documented values (check allows no other). */
function ruleOf(field: Field, documented: boolean): Rule {
  if (field.type === "object") return CONNECTION;
  if (field.type === "integer") return INTEGER;
  const values = field.values;
  if (!documented || values === undefined) return STRING;
  return { rule: `one of ${values.join(", ")}`, holds: (v) => typeof v === "string" && values.includes(v) };
}

/** What check records beside the arguments (`RecordedFields`), in inputs and outputs alike. */
const RECORDED: Record<keyof RecordedFields, Rule> = { __autonamed: BOOLEAN, __seed: STRING, __requestedAt: STRING };

/** A bag's rules: each property's, and whether it must be there. */
type Rules = ReadonlyArray<{ property: string; rule: Rule; required: boolean }>;

/** Checked inputs: every argument (the required and defaulted ones present), with what check records. */
const INPUT_RULES: Rules = [
  ...clusterArguments().map((name) => {
    const field: Field = CLUSTER_FIELDS[name];
    return { property: name, rule: ruleOf(field, true), required: field.input !== "optional" };
  }),
  ...recordedRules(),
];

/**
 * Recorded outputs: every output, each by its JSON type only (the state holds what the service
 * reported, a status it did not document included), none required (an import reads with none),
 * with what check records.
 */
const OUTPUT_RULES: Rules = [
  ...clusterFieldsWhere((f) => f.output !== undefined).map((name) => ({
    property: name,
    rule: ruleOf(CLUSTER_FIELDS[name], false),
    required: false,
  })),
  ...recordedRules(),
];

function recordedRules(): Rules {
  return Object.entries(RECORDED).map(([property, rule]) => ({ property, rule, required: false }));
}

/** The checked inputs of a call that acts: every value known. */
export function assertInputs(bag: object, call: string, where: string): asserts bag is ClusterInputs {
  assertBag(bag, INPUT_RULES, false, call, where);
}

/** The checked inputs of a preview's call: any value may be unknown. */
export function assertPreviewedInputs(bag: object, call: string, where: string): asserts bag is Previewed<ClusterInputs> {
  assertBag(bag, INPUT_RULES, true, call, where);
}

/** The outputs the state records. */
export function assertOutputs(bag: object, call: string, where: string): asserts bag is Partial<ClusterOutputs> {
  assertBag(bag, OUTPUT_RULES, false, call, where);
}

/**
 * Hold `bag` to `rules`: a property absent or `null` (which the core reads as absent) only where
 * not required, unknown only where `unknowns`. Properties without a rule are left as they are:
 * they go on into what is recorded, as they always have. The bag is not changed.
 */
function assertBag(bag: object, rules: Rules, unknowns: boolean, call: string, where: string): void {
  const values = bag as Record<string, unknown>;
  for (const { property, rule, required } of rules) {
    const value = values[property];
    const at = `the engine's ${call} request: ${where}.${property}`;
    if (value === undefined || value === null) {
      if (required) throw new InvalidArgumentError(`${at} is missing: it must be ${rule.rule}`);
    } else if (value === UNKNOWN) {
      if (!unknowns) throw new InvalidArgumentError(`${at} is unknown outside a preview: it must be ${rule.rule}`);
    } else if (!rule.holds(value)) {
      // The value itself is not shown: it may be a secret.
      throw new InvalidArgumentError(`${at} must be ${rule.rule}, got ${kindOf(value)}`);
    }
  }
}

/**
 * Why `value` is not a connection (`.token must be a string`), or undefined when it is: an object
 * whose endpoint and token are strings or absent (`null` too), or unknown ones in a preview.
 */
export function connectionProblem(value: unknown, unknowns: boolean): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return ` must be an object, got ${kindOf(value)}`;
  const members: Record<keyof ConnectionInputs, unknown> = {
    endpoint: (value as ConnectionInputs).endpoint,
    token: (value as ConnectionInputs).token,
  };
  for (const [key, member] of Object.entries(members)) {
    if (member === undefined || member === null || (unknowns && member === UNKNOWN)) continue;
    if (typeof member !== "string") return `.${key} must be a string, got ${kindOf(member)}`;
  }
  return undefined;
}

/** A value's kind for a message, never the value itself. */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number that is not an integer";
  if (typeof value === "string") return "a string";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
