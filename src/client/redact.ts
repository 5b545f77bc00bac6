/**
 * The one way secrets (tokens, kubeconfig credentials) are kept out of messages, for the client,
 * the provider and the functions alike.
 */

/** What a secret becomes in a message: the marker the Pulumi CLI itself shows for secrets. */
export const SECRET_MARKER = "[secret]";

/** Shorter values are not replaced: no credential is that short, and replacing them would garble text. */
const MIN_SECRET_LENGTH = 4;

/** `text` with every occurrence of each secret replaced by {@link SECRET_MARKER}. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(SECRET_MARKER);
  }
  return out;
}
