/** Polls until check returns a value other than undefined/false, or fails after timeoutMs. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
