package io.forgeflow.application.job;

import io.forgeflow.application.trace.Tracing;
import io.forgeflow.domain.job.Job;
import io.forgeflow.domain.job.JobStatus;
import io.forgeflow.domain.job.ScheduleState;
import io.forgeflow.domain.port.JobRepository;

/** Pauses a job: no new ticks fire, its pending runs become cancelled. Pausing a paused job changes nothing. */
public final class PauseJob {
    private final JobRepository jobs;
    private final Tracing tracing;

    public PauseJob(JobRepository jobs) {
        this(jobs, Tracing.NONE);
    }

    /** Records the run span of every pending run it cancels. */
    public PauseJob(JobRepository jobs, Tracing tracing) {
        this.jobs = jobs;
        this.tracing = tracing;
    }

    public Job pause(String id) {
        return pause(id, null, null);
    }

    /**
     * Pauses with a note saying why ({@code paused_note}, at most {@link ScheduleState#MAX_NOTE_LENGTH} characters;
     * null for none) and who paused it ({@code paused_by}: the API token's name, null without tokens). Pausing a
     * paused job with a note replaces the note.
     */
    public Job pause(String id, String note, String by) {
        String checked = ScheduleState.checkNote(note);
        Job job = JobControls.load(jobs, id);
        if (job.status() == JobStatus.PAUSED && (checked == null
                || checked.equals(job.schedule().pausedNote()) && java.util.Objects.equals(by, job.schedule().pausedBy()))) {
            return job;
        }
        if (job.status() != JobStatus.PAUSED && !job.status().canMoveTo(JobStatus.PAUSED)) {
            throw JobControls.illegal(job, "paused");
        }
        return JobControls.orRaced(JobControls.traced(tracing, jobs.pause(id, job.status(), checked, by)), id);
    }
}
