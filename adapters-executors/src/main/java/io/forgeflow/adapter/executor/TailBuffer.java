package io.forgeflow.adapter.executor;

import java.util.Arrays;

/**
 * Keeps the last {@code capacity} bytes written to it, and counts all of them. Memory is bounded by the capacity
 * whatever is written (it grows to the capacity only if that much arrives). Thread-safe: one thread writes while
 * another takes a {@link #snapshot()}.
 */
final class TailBuffer {
    private static final int INITIAL_SIZE = 8 * 1024;

    private final int capacity;
    private byte[] ring;
    private int start; // index of the oldest byte kept; stays 0 until the ring has grown to the capacity
    private int size;
    private long total;

    TailBuffer(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        this.ring = new byte[Math.min(capacity, INITIAL_SIZE)];
    }

    synchronized void write(byte[] bytes, int offset, int length) {
        total += length;
        if (length >= capacity) { // only the last capacity bytes can survive
            offset += length - capacity;
            length = capacity;
        }
        if (size + length > ring.length && ring.length < capacity) {
            ring = Arrays.copyOf(ring, (int) Math.min(capacity, Math.max(2L * ring.length, size + length)));
        }
        int cap = ring.length; // either size + length <= cap, or cap == capacity and the oldest bytes are overwritten
        int position = (start + size) % cap;
        int first = Math.min(length, cap - position);
        System.arraycopy(bytes, offset, ring, position, first);
        System.arraycopy(bytes, offset + first, ring, 0, length - first);
        int overflow = size + length - cap;
        if (overflow > 0) {
            start = (start + overflow) % cap;
            size = cap;
        } else {
            size += length;
        }
    }

    /** The bytes kept, oldest first. */
    synchronized byte[] snapshot() {
        byte[] copy = new byte[size];
        int first = Math.min(size, ring.length - start);
        System.arraycopy(ring, start, copy, 0, first);
        System.arraycopy(ring, 0, copy, first, size - first);
        return copy;
    }

    /** The bytes kept as text of at most {@code capacity} UTF-8 bytes, marked if some were dropped. */
    synchronized String text() {
        return TruncatedText.keepTail(snapshot(), total, capacity);
    }

    /** How many bytes were written in all, kept or not. */
    synchronized long totalBytes() {
        return total;
    }
}
