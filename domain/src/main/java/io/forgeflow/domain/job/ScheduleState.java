package io.forgeflow.domain.job;

/**
 * Where a job's schedule stands beyond its next run: how many runs the scheduler has fired for it (counted against
 * {@code max_runs}) and, while it is paused, the operator's note and who paused it (the API token's name; null
 * without tokens, or the scheduler when it paused the job itself). {@code deadStreak}: a recurring job with
 * {@code pause_after_failures}: its runs in a row that ended dead so far (a success or a resume sets it to 0); 0
 * for other jobs.
 */
public record ScheduleState(int firedRuns, String pausedNote, String pausedBy, int deadStreak) {
    /** Nothing fired, not paused. */
    public static final ScheduleState NONE = new ScheduleState(0, null, null, 0);
    /** The longest pause note. */
    public static final int MAX_NOTE_LENGTH = 500;
    /** Who {@code paused_by} names when the scheduler paused the job itself ({@code pause_after_failures}). */
    public static final String SCHEDULER = "scheduler";

    /**
     * The note of a pause by {@code pause_after_failures} (SQL's {@code forgeflow_failure_pause_note} writes the same),
     * e.g. "paused by the scheduler after 3 dead runs in a row (pause_after_failures: 3); resume the job once the cause
     * is fixed".
     */
    public static String failurePauseNote(int pauseAfterFailures) {
        return "paused by the scheduler after " + pauseAfterFailures
                + (pauseAfterFailures == 1 ? " dead run" : " dead runs in a row") + " (pause_after_failures: "
                + pauseAfterFailures + "); resume the job once the cause is fixed";
    }

    public ScheduleState {
        if (firedRuns < 0) {
            throw new IllegalArgumentException("firedRuns must not be negative, was " + firedRuns);
        }
        if (deadStreak < 0) {
            throw new IllegalArgumentException("deadStreak must not be negative, was " + deadStreak);
        }
    }

    /** No dead runs in a row. */
    public ScheduleState(int firedRuns, String pausedNote, String pausedBy) {
        this(firedRuns, pausedNote, pausedBy, 0);
    }

    /**
     * A pause note as submitted: null when none; refused with a {@code ValidationException} for field
     * {@code note} when longer than {@link #MAX_NOTE_LENGTH} or holding control characters other than newlines.
     */
    public static String checkNote(String note) {
        if (note == null || note.isBlank()) {
            return null;
        }
        if (note.length() > MAX_NOTE_LENGTH) {
            throw new io.forgeflow.domain.error.ValidationException("note", "note must be at most " + MAX_NOTE_LENGTH
                    + " characters, was " + note.length() + ": say briefly why the job is paused");
        }
        if (note.chars().anyMatch(c -> c != '\n' && Character.isISOControl(c))) {
            throw new io.forgeflow.domain.error.ValidationException("note", "note must not contain control characters "
                    + "other than newlines (NUL, tabs, escapes)");
        }
        return note.strip();
    }
}
