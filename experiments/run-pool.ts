/**
 * Runs `work` over `items` with at most `concurrency` in flight; results keep the items' order. Once `stop` is
 * aborted no item starts, the ones running finish, and the results are those of the items started (a prefix of
 * `items`, since they start in order).
 */
export async function runPool<Item, Value>(items: readonly Item[], concurrency: number, work: (item: Item, index: number) => Promise<Value>, stop?: AbortSignal): Promise<Value[]> {
  const results = new Array<Value>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && stop?.aborted !== true) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results.slice(0, next);
}
