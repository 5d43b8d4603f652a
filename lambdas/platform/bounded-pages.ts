/**
 * One page of a list whose filters are a filter expression over a key range (GET /events, an
 * endpoint's delivery log): the items a read discards are read, and paid for, too. Reads grow from
 * one more item than the page holds (all an unfiltered page needs, the extra one saying whether
 * more follow) and double until the page is full, the range ends or `maxItemsRead` items are read;
 * so a page costs at most that many reads and may come back short, even empty, with a position to
 * go on from: the last item shown when the page is full, else the last item read, shown or not.
 */

/** What one read of the range answers. */
export interface RangeRead<T, P> {
  /** The items read that pass the filters, in the list's order. */
  items: T[];
  /** How many items were read, passing or not. */
  itemsRead: number;
  /** Where the range goes on after this read; absent when it ended. */
  lastPosition?: P;
}

export interface BoundedPageRequest<T, P> {
  limit: number;
  maxItemsRead: number;
  /** Where the page starts (a cursor's position), or the start of the range. */
  after: P | undefined;
  read: (after: P | undefined, itemLimit: number) => Promise<RangeRead<T, P>>;
  positionOf: (item: T) => P;
}

export async function boundedPage<T, P>(request: BoundedPageRequest<T, P>): Promise<{ items: T[]; next?: P }> {
  const items: T[] = [];
  let after = request.after;
  let itemsRead = 0;
  let readSize = request.limit + 1;
  for (;;) {
    const read = await request.read(after, Math.min(readSize, request.maxItemsRead - itemsRead));
    items.push(...read.items);
    itemsRead += read.itemsRead;
    const lastShown = items[request.limit - 1];
    if (lastShown !== undefined && items.length > request.limit) {
      return { items: items.slice(0, request.limit), next: request.positionOf(lastShown) };
    }
    if (read.lastPosition === undefined) return { items };
    after = read.lastPosition;
    if (itemsRead >= request.maxItemsRead) return { items, next: after };
    readSize *= 2;
  }
}
