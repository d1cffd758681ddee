// One file being uploaded: progress, speed, time left, and its controls. A
// refusal (the policy pre-check, or the server's 413 or 415) shows here, on
// the file that caused it.
import { formatBytes, formatDuration, formatRate } from '../../lib/format.js';
import type { UploadJob } from '../../lib/upload-queue.js';

const STATE_TEXT = {
  waiting: 'Waiting',
  uploading: 'Uploading',
  paused: 'Paused',
  done: 'Uploaded',
  failed: 'Failed',
  cancelled: 'Cancelled',
} as const;

export function UploadItem({ job, onOpen }: { readonly job: UploadJob; readonly onOpen: (id: string) => void }) {
  const state = job.state.value;
  const sent = job.sent.value;
  const name = job.file.name;
  const active = state === 'uploading' || state === 'waiting';
  const percent = job.total > 0 ? Math.floor((sent / job.total) * 100) : state === 'done' ? 100 : 0;
  const resumedAt = job.resumedAt.value;
  return (
    <li class={`upload upload-${state}`}>
      <div class="upload-head">
        <span class="upload-name" title={name}>
          {name}
        </span>
        <span class="upload-state">{STATE_TEXT[state]}</span>
      </div>
      <progress max={100} value={percent} aria-label={`Progress of ${name}`} />
      <div class="upload-meta">
        <span>
          {formatBytes(sent)} of {formatBytes(job.total)} ({percent}%)
        </span>
        {state === 'uploading' && (
          <>
            <span>{formatRate(job.speed.value)}</span>
            <span>{Number.isNaN(job.secondsLeft) ? 'estimating time left' : `${formatDuration(job.secondsLeft)} left`}</span>
          </>
        )}
        {resumedAt > 0 && <span>resumed at {formatBytes(resumedAt)}</span>}
      </div>
      {job.error.value && <p class="field-error">{job.error.value}</p>}
      <div class="upload-actions">
        {active && (
          <button type="button" aria-label={`Pause ${name}`} onClick={() => job.pause()}>
            Pause
          </button>
        )}
        {state === 'paused' && (
          <button type="button" aria-label={`Resume ${name}`} onClick={() => job.resume()}>
            Resume
          </button>
        )}
        {state === 'failed' && job.url !== null && (
          <button type="button" aria-label={`Retry ${name}`} onClick={() => job.resume()}>
            Retry
          </button>
        )}
        {(active || state === 'paused') && (
          <button type="button" aria-label={`Cancel ${name}`} onClick={() => void job.cancel()}>
            Cancel
          </button>
        )}
        {state === 'done' && job.assetId.value && (
          <button type="button" aria-label={`Show ${name}`} onClick={() => onOpen(job.assetId.value)}>
            Show
          </button>
        )}
      </div>
    </li>
  );
}
