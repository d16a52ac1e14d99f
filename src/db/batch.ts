/**
 * Gathers calls made in the same turn of the event loop into one batch, so a burst of
 * occurrences costs one round trip per batch instead of one per occurrence. Each caller gets
 * its own result (or the batch's error).
 */
export class Batcher<In, Out> {
  private queue: { item: In; resolve: (out: Out) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.run(batch.map((entry) => entry.item)).then(
        (results) => batch.forEach((entry, i) => entry.resolve(results[i] as Out)),
        (err: unknown) => batch.forEach((entry) => entry.reject(err)),
      );
    }
  }
}
