package io.forgeflow.domain.port;

/**
 * The most bytes the items of one list response may hold, so no single request holds more than a few MiB whatever
 * the rows hold. An item's size is that of its bounded fields as stored (a run's output tail, error and worker; a
 * job's payload when listed, name and other texts) plus a fixed allowance for its field names and fixed-size values
 * ({@link ListedRun#ITEM_OVERHEAD_BYTES}, {@link ListedJob#ITEM_OVERHEAD_BYTES}); JSON escapes are not counted. A page
 * stops before the item that would pass the budget, but always carries at least one item, and its cursor continues
 * after its last item, so nothing is skipped.
 *
 * @param bytes at least {@value #MIN_BYTES}
 */
public record ListBudget(long bytes) {
    /** The default: 4 MiB. */
    public static final long DEFAULT_BYTES = 4L * 1024 * 1024;
    /** The smallest budget: 64 KiB (one item with a listed payload always fits anyway). */
    public static final long MIN_BYTES = 64L * 1024;
    /** 4 MiB. */
    public static final ListBudget DEFAULT = new ListBudget(DEFAULT_BYTES);

    public ListBudget {
        if (bytes < MIN_BYTES) {
            throw new IllegalArgumentException("a list byte budget must be at least " + MIN_BYTES + " bytes, was "
                    + bytes);
        }
    }
}
