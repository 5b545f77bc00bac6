/** Await a rejection and hand back the error (fails the test when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (e) {
    return e as Error & Record<string, unknown>;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
