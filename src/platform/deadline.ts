// A promise raced against a timer: work that must not outlive its budget (a derivation run's
// max_wall_s, an answer's 150 seconds) is abandoned with the caller's error when time is up.

export function withDeadline<T>(promise: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
