/**
 * Gathers calls into batches, so a burst of occurrences costs one round trip per batch instead of
 * one per occurrence. Calls made in the same turn of the event loop go together; while a batch is
 * in flight, later calls wait for it and then go as the next batch (as Nagle's algorithm does for
 * packets), so the busier the pod, the larger the batches and the fewer the statements. Each
 * caller gets its own result (or its batch's error). A batch the database refused (bad data in
 * one item, say) is retried item by item, so only the bad item fails.
 */
interface Entry<In, Out> {
  item: In;
  resolve: (out: Out) => void;
  reject: (err: unknown) => void;
}

/** An error PostgreSQL answered (it has a severity), not a connection that failed. */
function refusedByServer(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'severity' in err;
}

export class Batcher<In, Out> {
  private queue: Entry<In, Out>[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 500,
  ) {}

  add(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private async runEach(batch: Entry<In, Out>[]): Promise<void> {
    await Promise.all(
      batch.map((entry) =>
        Promise.resolve()
          .then(() => this.run([entry.item]))
          .then((outs) => entry.resolve(outs[0] as Out), entry.reject),
      ),
    );
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.inFlight = true;
    let results: Promise<Out[]>;
    try {
      results = this.run(batch.map((entry) => entry.item));
    } catch (err) {
      results = Promise.reject(err);
    }
    results
      .then(
        (outs) => batch.forEach((entry, i) => entry.resolve(outs[i] as Out)),
        (err: unknown) => {
          if (batch.length > 1 && refusedByServer(err)) return this.runEach(batch);
          batch.forEach((entry) => entry.reject(err));
        },
      )
      .finally(() => {
        this.inFlight = false;
        this.schedule();
      });
  }
}
