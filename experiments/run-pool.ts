/** Runs `work` over `items` with at most `concurrency` in flight; results keep the items' order. */
export async function runPool<Item, Value>(items: readonly Item[], concurrency: number, work: (item: Item, index: number) => Promise<Value>): Promise<Value[]> {
  const results = new Array<Value>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}
